package rundir

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/sample"
)

// column reads one column of a row group page by page, decoding each page
// into a plain slice, so that rows can be assembled column-wise without
// the per-value cost of the generic row reader. Pages as diperf writes
// them are taken as they are; any other faithful encoding (dictionaries,
// optional columns, INT32 for INT64, TIMESTAMP units: see columnType) is
// decoded value by value into the same slices.
type column struct {
	name  string
	ct    colType
	pages *pageReader
	page  parquet.Page
	i32   []int32         // int32 and uint32 columns: the page's values (uint32 as their bits)
	i64   []int64         // int64 and time columns: the page's values, ns for a time
	st    []sample.Status // status column: the page's values
	str   []string        // string column: the page's values
	f64   []float64       // double column (extras): the page's values, 0 where null
	has   []bool          // double column: whether each value is not null
	def   byte            // the column's maximum definition level
	n     int             // values in the page
	off   int             // next value to hand out
	dict  parquet.Dictionary
	dictS []sample.Status // status of each dictionary entry
	vals  []parquet.Value // the page's values, when decoded one by one
	own32 []int32         // i32's storage when decoded one by one
	own64 []int64         // i64's storage when decoded one by one
}

// openColumn opens column name of row group rg, which must hold kind;
// pages are read ahead in their own goroutine.
func openColumn(rg parquet.RowGroup, name string, kind colKind) (*column, error) {
	leaf, ok := rg.Schema().Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no column %q", name)
	}
	ct, err := columnType(name, leaf, kind)
	if err != nil {
		return nil, err
	}
	pages := readPagesAhead(rg.ColumnChunks()[leaf.ColumnIndex].Pages())
	return &column{name: name, ct: ct, pages: pages, def: byte(leaf.MaxDefinitionLevel)}, nil
}

// close releases the column's pages.
func (c *column) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	c.pages.Close()
}

// fill makes at least one value available; io.EOF at the end.
func (c *column) fill() error {
	for c.off >= c.n {
		if c.page != nil {
			parquet.Release(c.page)
			c.page = nil
		}
		p, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return err
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
		c.page, c.off = p, 0
		if err := c.decodeSafely(p); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return nil
}

// decodeSafely is decode, a panic of the Parquet decoder on a malformed
// page (a dictionary index out of range, ...) made an error.
func (c *column) decodeSafely(p parquet.Page) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("malformed page: %v", v)
		}
	}()
	return c.decode(p)
}

// decode points the column at page p's values.
func (c *column) decode(p parquet.Page) error {
	switch c.ct.kind {
	case kindDouble:
		return c.decodeDoubles(p)
	case kindStatus:
		return c.decodeStatus(p)
	case kindString:
		return c.decodeStrings(p)
	}
	if p.NumNulls() != 0 {
		return errNulls
	}
	if p.Dictionary() != nil || !c.ct.native() {
		return c.decodeIntegers(p)
	}
	c.n = int(p.NumValues())
	var have int
	data := p.Data()
	if c.ct.phys == parquet.Int32 {
		c.i32 = data.Int32()
		have = len(c.i32)
	} else {
		c.i64 = data.Int64()
		have = len(c.i64)
	}
	if have < c.n {
		return errors.New("page holds fewer values than it says")
	}
	return nil
}

// values decodes the page's values one by one into c.vals.
func (c *column) values(p parquet.Page) ([]parquet.Value, error) {
	n := int(p.NumValues())
	c.vals = slices.Grow(c.vals[:0], n)[:n]
	got, err := p.Values().ReadValues(c.vals)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if got != n {
		return nil, fmt.Errorf("page holds %d values and says %d", got, n)
	}
	c.n = n
	return c.vals, nil
}

// decodeIntegers decodes a page of an integer or time column value by
// value: through its dictionary, from another physical type, or scaled
// from a TIMESTAMP's unit.
func (c *column) decodeIntegers(p parquet.Page) error {
	vals, err := c.values(p)
	if err != nil {
		return err
	}
	small := c.ct.kind == kindInt32 || c.ct.kind == kindUint32
	c.own32, c.own64 = c.own32[:0], c.own64[:0]
	for i, v := range vals {
		x, err := c.ct.integer(v)
		if err != nil {
			return fmt.Errorf("value %d of a page: %w", i, err)
		}
		if small {
			c.own32 = append(c.own32, int32(x)) // a uint32's bits, for a client
		} else {
			c.own64 = append(c.own64, x)
		}
	}
	c.i32, c.i64 = c.own32, c.own64
	return nil
}

// available returns how many values can be taken without reading a page.
func (c *column) available() int { return c.n - c.off }
