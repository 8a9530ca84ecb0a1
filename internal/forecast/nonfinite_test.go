package forecast

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// TestChartSVGNonFinite: NaN, infinite and huge values in x or y leave
// their points out or far off the chart, never NaN or Inf in the SVG,
// which stays well-formed.
func TestChartSVGNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for name, in := range map[string]struct {
		x []float64
		y []float64
	}{
		"nan and inf x":   {[]float64{nan, 1, inf, 2}, []float64{1, 2, 3, 4}},
		"nan and inf y":   {[]float64{1, 2, 3, 4}, []float64{nan, inf, -inf, 4}},
		"huge":            {[]float64{1, 1.5e308}, []float64{-1e308, 1.7e308}},
		"only non-finite": {[]float64{nan, inf}, []float64{inf, nan}},
	} {
		svg := ChartSVG("t", "x", "y", in.x, []Line{{Name: "a", Y: in.y}})
		wellFormed(t, svg)
		if s := string(svg); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
			t.Errorf("%s: NaN or Inf in the SVG:\n%s", name, s)
		}
	}
}

// TestEvaluationJSONNonFinite: a method that scored nothing (NaN errors)
// or whose errors overflowed writes null, and the document still parses.
func TestEvaluationJSONNonFinite(t *testing.T) {
	ev := Evaluate([]Measurement{{At: time.Unix(1, 0), Value: 5}}, Options{}) // one point: nothing scored
	ev.Periods = []Period{{N: 1, Scores: []PeriodScore{{Method: "last", MAE: math.Inf(1), MSE: math.NaN(), MinMAE: math.Inf(-1), MaxMAE: 1}}}}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	var back struct {
		Full    []map[string]any `json:"full"`
		Periods []struct {
			Scores []map[string]any `json:"scores"`
		} `json:"periods"`
	}
	if err := json.Unmarshal(b, &back); err != nil || strings.Contains(string(b), "NaN") || strings.Contains(string(b), "Inf") {
		t.Fatalf("%v: %s", err, b)
	}
	if len(back.Full) == 0 || back.Full[0]["mae"] != nil || back.Full[0]["mse"] != nil || back.Full[0]["n"] != 0.0 {
		t.Errorf("full: %v; want mae and mse null, n 0", back.Full)
	}
	if s := back.Periods[0].Scores[0]; s["mae"] != nil || s["mse"] != nil || s["min_mae"] != nil || s["max_mae"] != 1.0 {
		t.Errorf("period score %v; want its non-finite errors null", s)
	}
}

// wellFormed fails t unless b is one well-formed XML document.
func wellFormed(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(b)))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b)
		}
	}
}
