package rundir

import (
	"math"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestColTypeInteger checks the conversions of integer values: a
// TIMESTAMP's unit to ns, unsigned bits, and values out of a column's
// range refused rather than wrapped.
func TestColTypeInteger(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ct   colType
		v    parquet.Value
		want int64
		ok   bool
	}{
		{colType{kind: kindTime, scale: 1000}, parquet.Int64Value(1_700_000_000_000_000), 1_700_000_000_000_000_000, true},
		{colType{kind: kindTime, scale: 1e6}, parquet.Int64Value(math.MaxInt64 / 100_000), 0, false},
		{colType{kind: kindUint32, unsigned: true}, parquet.Int32Value(-1), math.MaxUint32, true},
		{colType{kind: kindUint32}, parquet.Int64Value(-1), 0, false},
		{colType{kind: kindInt32}, parquet.Int64Value(math.MaxInt32 + 1), 0, false},
		{colType{kind: kindInt64, unsigned: true}, parquet.Int64Value(-1), 0, false},
		{colType{kind: kindInt64}, parquet.DoubleValue(1), 0, false},
	} {
		if tc.ct.scale == 0 {
			tc.ct.scale = 1
		}
		got, err := tc.ct.integer(tc.v)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("%+v of %v: %d, %v; want %d (ok %v)", tc.ct, tc.v, got, err, tc.want, tc.ok)
		}
	}
}
