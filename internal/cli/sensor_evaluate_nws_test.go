package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/forecast"
)

// TestSensorEvaluateEnsemble: on a recorded trace (a 70 s iperf3 stream
// whose tbf cap falls from 40 to 15 Mbit/s at 35 s, with bursts of cross
// traffic; one where the ensemble meets the criterion, see
// docs/sensors.md) `sensor evaluate`
// reports the NWS-style ensemble, named adaptive, beside every single
// forecaster in the text table and in --json, says how it chooses, and
// on this trace its MAE is at most every single forecaster's.
func TestSensorEvaluateEnsemble(t *testing.T) {
	t.Parallel()
	trace := "../forecast/testdata/bandwidth-cross.csv"
	var out, errb bytes.Buffer
	if code := Main([]string{"sensor", "evaluate", trace}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	rows := append(forecast.Defaults(), forecast.NewAdaptive())
	for _, m := range rows {
		if !strings.Contains(text, "\n"+m.Name()+" ") {
			t.Errorf("no row for %s:\n%s", m.Name(), text)
		}
	}
	if !strings.Contains(text, "adaptive: NWS's ensemble") {
		t.Errorf("the text does not say how adaptive chooses:\n%s", text)
	}
	out.Reset()
	if code := Main([]string{"sensor", "evaluate", "--json", trace}, &out, &errb); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errb.String())
	}
	var ev forecast.Report
	if err := json.Unmarshal(out.Bytes(), &ev); err != nil || len(ev.Series) != 1 || !strings.Contains(ev.Ensemble, "selector") {
		t.Fatalf("--json: %v, %+v", err, ev)
	}
	mae := map[string]float64{}
	for _, s := range ev.Series[0].Full {
		mae[s.Method] = s.MAE
	}
	for _, m := range forecast.Defaults() {
		if got, ok := mae[m.Name()]; !ok || mae["adaptive"] > got {
			t.Errorf("adaptive MAE %g, %s's %g (reported: %v)", mae["adaptive"], m.Name(), got, ok)
		}
	}
}
