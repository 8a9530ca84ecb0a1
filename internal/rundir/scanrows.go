package rundir

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// rowField is one column of Row as ScanRows reads it: the kind it must
// hold, whether a file may lack it (then 0 or ""), and where it goes.
type rowField struct {
	name     string
	kind     colKind
	required bool
	set      func(r *Row, c *column, i int)
}

// rowFields are Row's columns; the first is required, its end is the
// row group's.
var rowFields = []rowField{
	{"tester", kindInt32, true, func(r *Row, c *column, i int) { r.Tester = c.i32[i] }},
	{"tester_id", kindString, false, func(r *Row, c *column, i int) { r.TesterID = c.str[i] }},
	{"seq", kindInt64, true, func(r *Row, c *column, i int) { r.Seq = c.i64[i] }},
	{"start_ns", kindTime, true, func(r *Row, c *column, i int) { r.StartNs = c.i64[i] }},
	{"end_ns", kindTime, true, func(r *Row, c *column, i int) { r.EndNs = c.i64[i] }},
	{"local_start_ns", kindTime, true, func(r *Row, c *column, i int) { r.LocalStartNs = c.i64[i] }},
	{"status", kindString, true, func(r *Row, c *column, i int) { r.Status = c.str[i] }},
	{"bytes", kindInt64, true, func(r *Row, c *column, i int) { r.Bytes = c.i64[i] }},
	{"error", kindString, false, func(r *Row, c *column, i int) { r.Error = c.str[i] }},
	{colClient, kindUint32, false, func(r *Row, c *column, i int) { r.Client = uint32(c.i32[i]) }},
	{colIntended, kindTime, false, func(r *Row, c *column, i int) { r.IntendedNs = c.i64[i] }},
	{colPhases[0], kindInt64, false, func(r *Row, c *column, i int) { r.DNSNs = c.i64[i] }},
	{colPhases[1], kindInt64, false, func(r *Row, c *column, i int) { r.ConnectNs = c.i64[i] }},
	{colPhases[2], kindInt64, false, func(r *Row, c *column, i int) { r.TLSNs = c.i64[i] }},
	{colPhases[3], kindInt64, false, func(r *Row, c *column, i int) { r.FirstByteNs = c.i64[i] }},
}

// ScanRows reads the samples file dir/name (Samples, or SamplesOrig) row by
// row, handing fn up to RowChunk rows at a time; the slice is reused once
// fn returns, and an error from fn stops the scan. It reads every faithful
// encoding of its columns (see columnType), the extras columns too.
func ScanRows(dir, name string, fn func(rows []Row) error) error {
	path := filepath.Join(dir, name)
	pf, f, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]Row, RowChunk)
	for _, rg := range pf.RowGroups() {
		var ferr error
		err := scanGroup(rg, buf, func(rows []Row) error {
			ferr = fn(rows)
			return ferr
		})
		if ferr != nil {
			return ferr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// rowScanner reads the rows of one row group column by column.
type rowScanner struct {
	cols   []*column // Row's columns the file has, then the extras columns
	sets   []func(*Row, *column, int)
	extras []*column
	keys   []string // of each extras column
}

// scanGroup hands the rows of rg to fn, len(buf) at most at a time.
func scanGroup(rg parquet.RowGroup, buf []Row, fn func([]Row) error) error {
	sc := &rowScanner{}
	defer sc.close()
	if err := sc.open(rg); err != nil {
		return err
	}
	for {
		n, err := fillAll(sc.cols, len(buf))
		if err != nil || n == 0 {
			return err
		}
		rows := buf[:n]
		sc.take(rows)
		if err := fn(rows); err != nil {
			return err
		}
	}
}

// open opens the columns of rg that make Rows.
func (sc *rowScanner) open(rg parquet.RowGroup) error {
	for _, fd := range rowFields {
		if _, ok := rg.Schema().Lookup(fd.name); !ok && !fd.required {
			continue
		}
		c, err := openColumn(rg, fd.name, fd.kind)
		if err != nil {
			return err
		}
		sc.cols, sc.sets = append(sc.cols, c), append(sc.sets, fd.set)
	}
	names, keys := extraColumns(rg)
	for _, name := range names {
		c, err := openColumn(rg, name, kindDouble)
		if err != nil {
			return err
		}
		sc.cols, sc.extras = append(sc.cols, c), append(sc.extras, c)
	}
	sc.keys = keys
	return nil
}

// take fills rows from the next len(rows) values every column holds.
func (sc *rowScanner) take(rows []Row) {
	clear(rows)
	ext := newExtras(sc.extras, len(rows))
	for k := range rows {
		rows[k].Extras, ext = extrasAt(sc.extras, sc.keys, k, ext)
	}
	for j, set := range sc.sets {
		for k := range rows {
			set(&rows[k], sc.cols[j], sc.cols[j].off+k)
		}
	}
	for _, c := range sc.cols {
		c.off += len(rows)
	}
}

// close releases every open column.
func (sc *rowScanner) close() {
	for _, c := range sc.cols {
		c.close()
	}
}

// fillAll makes values available in every column and returns how many
// rows (at most limit) they all hold: 0 at the end of the first column.
func fillAll(cols []*column, limit int) (int, error) {
	n := limit
	for _, c := range cols {
		if err := c.fill(); err != nil {
			if errors.Is(err, io.EOF) && c == cols[0] {
				return 0, nil
			}
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("column %s ends before column %s", c.name, cols[0].name)
			}
			return 0, err
		}
		n = min(n, c.available())
	}
	return n, nil
}
