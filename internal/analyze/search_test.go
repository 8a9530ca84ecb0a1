package analyze

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/search"
)

// searchResult is a capacity found at 480 calls/s, 500 failing p99, in
// three steps of 20 s.
func searchResult() *search.Result {
	lo, hi := 480.0, 500.0
	steps := make([]search.StepRecord, 3)
	for i := range steps {
		steps[i] = search.StepRecord{Step: i + 1, Load: []float64{240, 500, 480}[i], Seconds: 20}
	}
	return &search.Result{Verdict: search.VerdictCapacity, Capacity: &lo, Interval: [2]*float64{&lo, &hi}, BreaksAt: &hi,
		Binding: "p99_ms < 30", Precision: 0.05, Calls: 24000, Seconds: 60, Why: "capacity 480", Steps: steps}
}

// A search's answer becomes the summary's block and its printed line:
// the verdict, capacity with interval and unit, binding SLO, steps, calls.
func TestSearchSummaryLine(t *testing.T) {
	t.Parallel()
	b, err := NewSearchSummary(searchResult(), SearchUnitRate, 70, 0)
	if err != nil {
		t.Fatal(err)
	}
	if *b.Capacity != 480 || *b.Interval[1] != 500 || b.Steps != 3 || b.Calls != 24000 || b.Binding != "p99_ms < 30" || b.NoneMeets() || b.BelowMin() {
		t.Fatalf("block %+v", b)
	}
	var out bytes.Buffer
	if err := FormatSummary(&out, &Summary{Search: b}); err != nil {
		t.Fatal(err)
	}
	want := "capacity: 480 calls/s in [480, 500], p99_ms < 30 binds; 3 steps, 24000 calls in 60 s"
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "search verdict  capacity 480") {
		t.Errorf("summary:\n%s\nwant a line %q and the verdict's words", out.String(), want)
	}
	b.MinCapacity = 490
	if !b.BelowMin() || !strings.Contains(b.Text(), "below the minimum asked, 490") {
		t.Errorf("min capacity 490: BelowMin %v, %q", b.BelowMin(), b.Text())
	}
}

// A search.json that says what the run cannot hold is refused, with why.
func TestSearchSummaryRefused(t *testing.T) {
	t.Parallel()
	ptr := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		edit func(r *search.Result)
		want string
	}{
		{"nan capacity", func(r *search.Result) { r.Capacity, r.Interval[0] = ptr(math.NaN()), ptr(math.NaN()) }, "not a number above 0"},
		{"negative load", func(r *search.Result) { r.Capacity, r.Interval[0] = ptr(-5), ptr(-5) }, "not a number above 0"},
		{"infinite hi", func(r *search.Result) { r.BreaksAt, r.Interval[1] = ptr(math.Inf(1)), ptr(math.Inf(1)) }, "not a number above 0"},
		{"lo above hi", func(r *search.Result) { r.Capacity, r.Interval[0] = ptr(600), ptr(600) }, "low end above its high one"},
		{"capacity not lo", func(r *search.Result) { r.Capacity = ptr(490) }, "not the interval's ends"},
		{"too many steps", func(r *search.Result) { r.Steps = make([]search.StepRecord, 200) }, "200 steps"},
		{"too many seconds", func(r *search.Result) { r.Seconds = 1000 }, "more than the run's 70 s allow"},
		{"steps' seconds", func(r *search.Result) { r.Steps[0].Seconds = 1000 }, "its steps hold 1040 s"},
		{"step load nan", func(r *search.Result) { r.Steps[1].Load = math.NaN() }, "step 2: load NaN"},
		{"precision", func(r *search.Result) { r.Precision = 2 }, "not a share in (0, 1]"},
		{"unknown verdict", func(r *search.Result) { r.Verdict = "great" }, `unknown verdict "great"`},
		{"fails-at-lowest with a capacity", func(r *search.Result) { r.Verdict = search.VerdictFailsAtLowest }, "verdict fails-at-lowest with capacity 480"},
		{"capacity without one", func(r *search.Result) { r.Capacity, r.Interval[0] = nil, nil }, "verdict capacity with capacity -"},
		{"steps overlap", func(r *search.Result) {
			r.Steps[0].From, r.Steps[0].To, r.Steps[1].From, r.Steps[1].To = 100, 120, 110, 130
		}, "step 2: its seconds [110, 130]"},
		{"step ends before it starts", func(r *search.Result) { r.Steps[0].From, r.Steps[0].To = 100, 90 }, "step 1: its seconds [100, 90]"},
		{"long why", func(r *search.Result) { r.Why = strings.Repeat("x", 5000) }, "longer than 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := searchResult()
			tt.edit(r)
			b, err := NewSearchSummary(r, SearchUnitRate, 70, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) || b != nil {
				t.Errorf("got %+v, %v; want refused: %q", b, err, tt.want)
			}
		})
	}
}

// A run whose first load failed already: no capacity, exit 3's NoneMeets.
func TestSearchSummaryNoneMeets(t *testing.T) {
	t.Parallel()
	hi := 100.0
	r := &search.Result{Verdict: search.VerdictFailsAtLowest, Interval: [2]*float64{nil, &hi}, BreaksAt: &hi, Binding: "p99_ms < 1",
		Precision: 0.05, Seconds: 8, Why: "the lowest load, 100, failed p99_ms < 1 already", Steps: []search.StepRecord{{Step: 1, Load: 100, Seconds: 8}}}
	b, err := NewSearchSummary(r, SearchUnitClients, 10, 50)
	if err != nil {
		t.Fatal(err)
	}
	if !b.NoneMeets() || !b.BelowMin() || !strings.HasPrefix(b.Text(), "fails-at-lowest: no capacity, clients in [-, 100], p99_ms < 1 binds; 1 step,") {
		t.Errorf("NoneMeets %v, BelowMin %v, %q", b.NoneMeets(), b.BelowMin(), b.Text())
	}
}

// A refused search.json is said in the printed summary, not left out
// silently.
func TestSearchSummaryRefusedLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := FormatSummary(&out, &Summary{SearchRefused: "search.json: 40 steps in 0 s"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "refused: search.json: 40 steps in 0 s") {
		t.Errorf("summary:\n%s", out.String())
	}
}
