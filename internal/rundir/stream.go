package rundir

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/sample"
)

// streamBatch is how many calls StreamCalls hands over at a time.
const streamBatch = 64 << 10

// StreamCalls reads samples.parquet column by column and hands its calls
// to fn in batches, each placed on the global timeline like ReadCalls does
// (mapping may return nil: no correction). The batch is reused once fn
// returns. Decoding runs ahead of fn in other goroutines, so that reading
// and analysis share the machine's cores. An error from fn stops the read.
func StreamCalls(dir string, mapping func(tester int32) *clock.Mapper, fn func([]sample.Call) error) error {
	path := filepath.Join(dir, Samples)
	pf, f, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	full, free := make(chan []sample.Call, 2), make(chan []sample.Call, 3)
	for range 3 {
		free <- make([]sample.Call, 0, streamBatch)
	}
	stop := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(full)
		errc <- produceSafely(pf, newMapperCache(mapping), free, full, stop)
	}()
	var ferr error
	for b := range full {
		if ferr == nil {
			if ferr = fn(b); ferr != nil {
				close(stop)
			}
		}
		free <- b[:0]
	}
	if perr := <-errc; perr != nil && ferr == nil {
		return fmt.Errorf("%s: %w", path, perr)
	}
	return ferr
}

// produceSafely is produce, a panic made an error (it runs in a goroutine
// of its own, where nobody else can recover it).
func produceSafely(pf *parquet.File, mc *mapperCache, free, full chan []sample.Call, stop chan struct{}) (err error) {
	defer errs.Recover("reading the calls", &err)
	return produce(pf, mc, free, full, stop)
}

// testHookRowGroup, when set (by tests), is called before each row group
// is read.
var testHookRowGroup func()

// produce decodes every row group of pf into batches taken from free and
// sent to full, until done or stop.
func produce(pf *parquet.File, mc *mapperCache, free, full chan []sample.Call, stop chan struct{}) error {
	for _, rg := range pf.RowGroups() {
		if testHookRowGroup != nil {
			testHookRowGroup()
		}
		more, err := produceGroup(rg, mc, free, full, stop)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// produceGroup is produce for one row group; false once stopped.
func produceGroup(rg parquet.RowGroup, mc *mapperCache, free, full chan []sample.Call, stop chan struct{}) (bool, error) {
	rd, err := newRowGroupReader(rg)
	if err != nil {
		return false, err
	}
	defer rd.close()
	for {
		var b []sample.Call
		select {
		case b = <-free:
		case <-stop:
			return false, nil
		}
		b, err = rd.read(b, mc)
		if len(b) > 0 {
			full <- b
		} else {
			free <- b // nothing read: keep the buffer
		}
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// Columns of samples.parquet that the analysis reads.
const (
	colTester = iota
	colStart
	colEnd
	colLocal
	colStatus
	colBytes
	numCols
)

var colNames = [numCols]string{"tester", "start_ns", "end_ns", "local_start_ns", "status", "bytes"}

// colKinds is what each of colNames holds.
var colKinds = [numCols]colKind{kindInt32, kindTime, kindTime, kindTime, kindStatus, kindInt64}

// colClient is the column of the client index, which files written
// before clients_per_tester lack: their calls are all of client 0.
const colClient = "client"

// colIntended is the column of open-model calls' intended starts, which
// files written before the open model lack.
const colIntended = "intended_ns"

// colPhases are the columns of the HTTP phases, in sample.Phases' order,
// which files written before them lack.
var colPhases = [numPhases]string{"dns_ns", "connect_ns", "tls_ns", "first_byte_ns"}

// numPhases is the number of HTTP phase columns.
const numPhases = 4

// rowGroupReader assembles calls from the columns of one row group.
type rowGroupReader struct {
	cols     [numCols]*column
	client   *column            // nil: the file has no client column
	intended *column            // nil: the file has no intended_ns column
	phases   [numPhases]*column // nil: the file has no such column
	extras   []*column          // the x_<key> columns
	keys     []string           // the key of each extras column
	all      []*column
}

// newRowGroupReader opens the analysis columns of rg.
func newRowGroupReader(rg parquet.RowGroup) (*rowGroupReader, error) {
	rd := &rowGroupReader{}
	open := func(name string, kind colKind) (*column, error) {
		c, err := openColumn(rg, name, kind)
		if err != nil {
			rd.close()
			return nil, err
		}
		rd.all = append(rd.all, c)
		return c, nil
	}
	var err error
	for i, name := range colNames {
		if rd.cols[i], err = open(name, colKinds[i]); err != nil {
			return nil, err
		}
	}
	optional, names := []**column{&rd.client, &rd.intended}, []string{colClient, colIntended}
	kinds := []colKind{kindUint32, kindTime}
	for i := range colPhases {
		optional, names, kinds = append(optional, &rd.phases[i]), append(names, colPhases[i]), append(kinds, kindInt64)
	}
	for i, name := range names {
		if _, ok := rg.Schema().Lookup(name); !ok || i >= 2 && allZero(rg, name) {
			continue
		}
		if *optional[i], err = open(name, kinds[i]); err != nil {
			return nil, err
		}
	}
	names, keys := extraColumns(rg)
	for _, name := range names {
		c, err := open(name, kindDouble)
		if err != nil {
			return nil, err
		}
		rd.extras = append(rd.extras, c)
	}
	rd.keys = keys
	return rd, nil
}

// allZero reports whether the statistics of column name of rg say that it
// holds zeros only (the phase columns of a run without HTTP phases), so
// that it need not be read.
func allZero(rg parquet.RowGroup, name string) (zero bool) {
	defer func() {
		if recover() != nil {
			zero = false // malformed statistics say nothing: the column is read
		}
	}()
	leaf, _ := rg.Schema().Lookup(name)
	fc, ok := rg.ColumnChunks()[leaf.ColumnIndex].(*parquet.FileColumnChunk)
	if !ok || leaf.Node.Type().Kind() != parquet.Int64 {
		return false
	}
	lo, hi, ok := fc.Bounds()
	return ok && lo.Int64() == 0 && hi.Int64() == 0
}

// allNull reports whether the statistics of column name of rg say that it
// holds nulls only (an extras key no call of the row group reported).
func allNull(rg parquet.RowGroup, name string) bool {
	leaf, _ := rg.Schema().Lookup(name)
	fc, ok := rg.ColumnChunks()[leaf.ColumnIndex].(*parquet.FileColumnChunk)
	return ok && fc.NumValues() > 0 && fc.NullCount() == fc.NumValues()
}

// close releases every open column.
func (rd *rowGroupReader) close() {
	for _, c := range rd.all {
		c.close()
	}
}

// read appends up to cap(b) calls to b; io.EOF once the row group is done.
func (rd *rowGroupReader) read(b []sample.Call, mc *mapperCache) ([]sample.Call, error) {
	for len(b) < cap(b) {
		n, err := fillAll(rd.all, cap(b)-len(b)) // rd.all[0] is the tester column
		if err != nil {
			return b, err
		}
		if n == 0 {
			return b, io.EOF
		}
		b = rd.take(b, n, mc)
	}
	return b, nil
}

// take appends the next n rows, which every column holds decoded.
func (rd *rowGroupReader) take(b []sample.Call, n int, mc *mapperCache) []sample.Call {
	c := &rd.cols
	tester := c[colTester].i32[c[colTester].off:][:n]
	start := c[colStart].i64[c[colStart].off:][:n]
	end := c[colEnd].i64[c[colEnd].off:][:n]
	local := c[colLocal].i64[c[colLocal].off:][:n]
	status := c[colStatus].st[c[colStatus].off:][:n]
	bytes := c[colBytes].i64[c[colBytes].off:][:n]
	var client []int32
	if rd.client != nil {
		client = rd.client.i32[rd.client.off:][:n]
	}
	var intended []int64
	if rd.intended != nil {
		intended = rd.intended.i64[rd.intended.off:][:n]
	}
	var phases [numPhases][]int64
	for k, col := range rd.phases {
		if col != nil {
			phases[k] = col.i64[col.off:][:n]
		}
	}
	ext := newExtras(rd.extras, n)
	for i := range n {
		s := local[i]
		if m := mc.get(tester[i]); m != nil {
			s += m.Offset(s)
		}
		call := sample.Call{Tester: tester[i], Start: s, End: s + end[i] - start[i],
			Status: status[i], Bytes: bytes[i]}
		if client != nil {
			call.Client = uint32(client[i])
		}
		if intended != nil && intended[i] != 0 {
			call.Intended = s - (start[i] - intended[i])
		}
		call.Phases = sample.Phases{DNS: valueAt(phases[0], i), Connect: valueAt(phases[1], i),
			TLS: valueAt(phases[2], i), FirstByte: valueAt(phases[3], i)}
		call.Extras, ext = extrasAt(rd.extras, rd.keys, i, ext)
		b = append(b, call)
	}
	for _, col := range rd.all {
		col.off += n
	}
	return b
}

// valueAt returns v[i], or 0 for a column the file lacks (nil v).
func valueAt(v []int64, i int) int64 {
	if v == nil {
		return 0
	}
	return v[i]
}

// mapperCache looks up the clock mapper of each tester once.
type mapperCache struct {
	mapping func(int32) *clock.Mapper
	byIdx   []*clock.Mapper
	known   []bool
}

// newMapperCache wraps mapping (nil: no correction).
func newMapperCache(mapping func(int32) *clock.Mapper) *mapperCache {
	return &mapperCache{mapping: mapping}
}

// get returns tester t's mapper.
func (mc *mapperCache) get(t int32) *clock.Mapper {
	if mc.mapping == nil {
		return nil
	}
	if t < 0 || t >= 1<<24 {
		return mc.mapping(t)
	}
	if int(t) >= len(mc.known) {
		n := max(int(t)+1, 2*len(mc.known))
		mc.byIdx = append(mc.byIdx, make([]*clock.Mapper, n-len(mc.byIdx))...)
		mc.known = append(mc.known, make([]bool, n-len(mc.known))...)
	}
	if !mc.known[t] {
		mc.byIdx[t], mc.known[t] = mc.mapping(t), true
	}
	return mc.byIdx[t]
}
