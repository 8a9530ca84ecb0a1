package analyze

import (
	"encoding/json"
	"math"

	"github.com/diperf/diperf/internal/jsonnum"
)

// extrasJSON is ExtraStats as summary.json holds it: a figure that is not
// finite (a sum of values near the float64 limit overflows) is null.
type extrasJSON struct {
	Calls int      `json:"calls"`
	Sum   *float64 `json:"sum"`
	Mean  *float64 `json:"mean"`
	PerS  *float64 `json:"per_s"`
	Min   *float64 `json:"min"`
	Max   *float64 `json:"max"`
}

// MarshalJSON writes the figures that are not finite as null, so that
// summary.json is still written (encoding/json refuses NaN and ±Inf).
func (s ExtraStats) MarshalJSON() ([]byte, error) {
	p := jsonnum.Ptr
	return json.Marshal(extrasJSON{s.Calls, p(s.Sum), p(s.Mean), p(s.PerS), p(s.Min), p(s.Max)})
}

// UnmarshalJSON reads a null figure back as NaN: not known, as written.
func (s *ExtraStats) UnmarshalJSON(b []byte) error {
	var j extrasJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	v := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*s = ExtraStats{Calls: j.Calls, Sum: v(j.Sum), Mean: v(j.Mean), PerS: v(j.PerS), Min: v(j.Min), Max: v(j.Max)}
	return nil
}
