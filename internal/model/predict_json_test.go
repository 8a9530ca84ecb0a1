package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPredictionJSONNonFinite: `diperf predict --json` at a load whose
// figures overflow float64 (or at zero throughput, where the response
// time is infinite) writes them as null, and the JSON still parses.
func TestPredictionJSONNonFinite(t *testing.T) {
	for _, tt := range []struct {
		u    USL
		load float64
	}{
		{USL{Lambda: 10, Sigma: 0.1, Kappa: 0.01}, 1e200}, // response time overflows
		{USL{Lambda: 10, Sigma: 0.1, Kappa: 0.01}, 1e308}, // throughput Inf/Inf
		{USL{Lambda: 10, Sigma: 0.1}, 1e308},              // both overflow
		{USL{Lambda: 0, Sigma: 0.1}, 10},                  // no throughput: infinite response time
	} {
		m := &Model{USL: tt.u}
		b, err := json.Marshal(m.Predict(tt.load))
		if err != nil {
			t.Errorf("%+v at %g: %v", tt.u, tt.load, err)
			continue
		}
		var back struct {
			Load float64             `json:"load"`
			RT   map[string]*float64 `json:"response_time_ms"`
		}
		if err := json.Unmarshal(b, &back); err != nil || strings.Contains(string(b), "NaN") || strings.Contains(string(b), "Inf") {
			t.Errorf("%s: %v", b, err)
		}
		if back.Load != tt.load || back.RT["value"] != nil {
			t.Errorf("%s: want load %g and response_time_ms.value null", b, tt.load)
		}
	}
}
