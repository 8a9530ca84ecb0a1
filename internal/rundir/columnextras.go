package rundir

import (
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/sample"
)

// newExtras returns room for the extras of the next n rows of the extras
// columns cols: one slice for them all, which the rows' Extras share. It
// is never reused, since the caller may still hold the rows of an earlier
// batch.
func newExtras(cols []*column, n int) []sample.Extra {
	total := 0
	for _, col := range cols {
		for _, h := range col.has[col.off:][:n] {
			if h {
				total++
			}
		}
	}
	if total == 0 {
		return nil
	}
	return make([]sample.Extra, 0, total)
}

// extrasAt appends the extras of the i-th of the next rows of the extras
// columns cols (of keys) to ext and returns them (nil for none) and ext.
func extrasAt(cols []*column, keys []string, i int, ext []sample.Extra) ([]sample.Extra, []sample.Extra) {
	from := len(ext)
	for k, col := range cols {
		if j := col.off + i; col.has[j] {
			ext = append(ext, sample.Extra{Key: keys[k], Value: col.f64[j]})
		}
	}
	if len(ext) == from {
		return nil, ext
	}
	return ext[from:len(ext):len(ext)], ext
}

// extraColumns names the extras columns of rg that hold a value.
func extraColumns(rg parquet.RowGroup) (names, keys []string) {
	for _, f := range rg.Schema().Fields() {
		key, ok := strings.CutPrefix(f.Name(), ExtraPrefix)
		if ok && f.Leaf() && !allNull(rg, f.Name()) {
			names, keys = append(names, f.Name()), append(keys, key)
		}
	}
	return names, keys
}
