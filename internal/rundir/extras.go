package rundir

import (
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// MaxExtraColumns bounds the extras columns of samples.parquet: the
// first keys the spool holds, in the order they first appear, up to this
// many; later keys are left out of the file (a client inventing keys
// cannot make the schema grow without bound).
const MaxExtraColumns = 64

// ExtraPrefix starts the name of each extras column of samples.parquet.
const ExtraPrefix = "x_"

// extrasWriter writes rows whose extras become optional DOUBLE columns
// after Row's own: the schema is Row's fields plus one x_<key> field per
// key, so Row's columns keep their indexes and each row is Row's values
// followed by one value (or null) per extra column.
type extrasWriter struct {
	w     *parquet.GenericWriter[any]
	fixed *parquet.Schema // Row's own schema
	keys  map[string]int  // key -> column index
	n     int             // Row's columns
	buf   []parquet.Row
	vals  []float64 // this row's extra values, by key order
	has   []bool
}

func newExtrasWriter(f io.Writer, keys []string) *extrasWriter {
	rt := reflect.TypeFor[Row]()
	var fields []reflect.StructField
	for i := range rt.NumField() {
		if sf := rt.Field(i); sf.Tag.Get("parquet") != "-" {
			fields = append(fields, sf)
		}
	}
	fixed := parquet.SchemaOf(Row{})
	ew := &extrasWriter{fixed: fixed, keys: map[string]int{}, n: len(fixed.Columns()),
		vals: make([]float64, len(keys)), has: make([]bool, len(keys))}
	for i, k := range keys {
		fields = append(fields, reflect.StructField{Name: "X" + strconv.Itoa(i), Type: reflect.TypeFor[*float64](),
			Tag: reflect.StructTag(`parquet:"` + ExtraPrefix + k + `,optional"`)})
		ew.keys[k] = i
	}
	full := parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Elem().Interface())
	ew.w = parquet.NewGenericWriter[any](f, append(writerOptions(), full)...)
	return ew
}

// write writes rows with their extras.
func (ew *extrasWriter) write(rows []Row) error {
	ew.buf = ew.buf[:0]
	for i := range rows {
		pr := ew.fixed.Deconstruct(nil, &rows[i])
		clear(ew.has)
		for _, e := range rows[i].Extras {
			if j, ok := ew.keys[e.Key]; ok {
				ew.vals[j], ew.has[j] = e.Value, true
			}
		}
		for j := range ew.vals {
			col := ew.n + j
			if ew.has[j] {
				pr = append(pr, parquet.DoubleValue(ew.vals[j]).Level(0, 1, col))
			} else {
				pr = append(pr, parquet.NullValue().Level(0, 0, col))
			}
		}
		ew.buf = append(ew.buf, pr)
	}
	_, err := ew.w.WriteRows(ew.buf)
	return err
}

func (ew *extrasWriter) close() error { return ew.w.Close() }

// extraKeys collects the keys of the extras columns: the first
// MaxExtraColumns keys met, in the order met.
type extraKeys map[string]bool

// add notes the keys of the extras of samples.
func (k *extraKeys) add(samples []sample.Sample) {
	for i := range samples {
		for _, e := range samples[i].Extras {
			if *k == nil {
				*k = extraKeys{}
			}
			if len(*k) < MaxExtraColumns {
				(*k)[e.Key] = true
			}
		}
	}
}

// sorted returns the keys in order (nil for none).
func (k extraKeys) sorted() []string {
	if len(k) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(k))
}

// spoolExtraKeys reads the spool at path for the keys of its extras (see
// extraKeys): what a SpoolWriter's ExtraKeys says of a spool it wrote.
func spoolExtraKeys(path string) ([]string, error) {
	var keys extraKeys
	err := ReadSpool(path, SpoolVisitor{
		Sync: func(int, clock.Record) error { return nil },
		Batch: func(_ int, b *protocol.Batch) error {
			keys.add(b.Samples)
			return nil
		},
	})
	return keys.sorted(), err
}
