package stats

import (
	"encoding/json"

	"github.com/diperf/diperf/internal/jsonnum"
)

// MarshalJSON writes a bound or estimate that is not finite (a model's
// prediction far past what float64 holds, a response time at zero
// throughput) as null, instead of failing the whole document.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Value *float64 `json:"value"`
		Low   *float64 `json:"low"`
		High  *float64 `json:"high"`
	}{jsonnum.Ptr(iv.Value), jsonnum.Ptr(iv.Low), jsonnum.Ptr(iv.High)})
}
