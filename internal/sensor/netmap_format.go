package sensor

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/diperf/diperf/internal/jsonnum"
)

// unknownText stands for a figure that is not known in the map's table
// and heat map.
const unknownText = "?"

// LatencyText writes a latency given in ms for people: "?" when it is
// not known (0, negative or not finite: no latency result for the pair,
// or a hop of its estimate without one), in µs below a millisecond
// ("420µs", "4.2µs"), else in ms ("3.5ms").
func LatencyText(ms float64) string {
	switch {
	case !known(ms):
		return unknownText
	case ms < 0.0095:
		return fmt.Sprintf("%.1fµs", ms*1e3)
	case ms < 0.9995:
		return fmt.Sprintf("%.0fµs", ms*1e3)
	}
	return fmt.Sprintf("%.1fms", ms)
}

// known says whether a figure of the map (a bandwidth or a latency) is
// known: above zero and finite.
func known(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// MarshalJSON writes the row with bandwidth_bps and latency_ms null when
// not known, never as 0 or a number JSON cannot hold.
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row
	return json.Marshal(struct {
		plain
		BandwidthBps *float64 `json:"bandwidth_bps"`
		LatencyMs    *float64 `json:"latency_ms"`
	}{plain(r), knownOrNil(r.BandwidthBps), knownOrNil(r.LatencyMs)})
}

// knownOrNil is &v when v is known, else nil.
func knownOrNil(v float64) *float64 {
	if v <= 0 {
		return nil
	}
	return jsonnum.Ptr(v)
}

// shadeOf is the opacity of a heat map cell of bandwidth bps, between
// 0.15 for lo and 0.9 for hi on a log scale (0 when bps is not known);
// the logs are taken apart so that no ratio overflows.
func shadeOf(bps, lo, hi float64) float64 {
	switch {
	case !known(bps):
		return 0
	case hi <= lo:
		return 0.15
	}
	return 0.15 + 0.75*(math.Log(bps)-math.Log(lo))/(math.Log(hi)-math.Log(lo))
}
