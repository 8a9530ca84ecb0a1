// Package jsonnum lets a JSON writer say "unknown" (null) where a figure
// is NaN or infinite, which encoding/json refuses to write (the whole
// document fails). A type's MarshalJSON shadows its float fields with
// *float64 fields of the same JSON names, set with Ptr.
package jsonnum

import "math"

// Ptr returns &v when v is finite, else nil (null in JSON).
func Ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
