package jsonnum

import (
	"math"
	"testing"
)

func TestPtr(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if Ptr(v) != nil {
			t.Errorf("Ptr(%g) is not nil", v)
		}
	}
	if p := Ptr(-1e308); p == nil || *p != -1e308 {
		t.Errorf("Ptr(-1e308) = %v", p)
	}
}
