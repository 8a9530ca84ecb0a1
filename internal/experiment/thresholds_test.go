package experiment

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Both forms of an entry decode, with their defaults, and survive the run
// directory's copy of the experiment.
func TestThresholdsKey(t *testing.T) {
	t.Parallel()
	in := base + `thresholds:
  - p99_ms < 250
  - "error_rate < 1%"
  - check: throughput > 100
    over: last 30s
    abort: true
    for: 10s
  - {check: "median_ms <= 20", over: peak}
  - saturation.load > 50
`
	exp, err := Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Threshold{
		{Check: "p99_ms < 250"},
		{Check: "error_rate < 1%"},
		{Check: "throughput > 100", Over: "last 30s", Abort: true, For: Duration(10 * time.Second)},
		{Check: "median_ms <= 20", Over: "peak"},
		{Check: "saturation.load > 50"},
	}
	if len(exp.Thresholds) != len(want) {
		t.Fatalf("thresholds = %+v, want %+v", exp.Thresholds, want)
	}
	for i, w := range want {
		if exp.Thresholds[i] != w {
			t.Errorf("thresholds[%d] = %+v, want %+v", i, exp.Thresholds[i], w)
		}
	}
	c, w, err := exp.Thresholds[3].Parsed()
	if err != nil || c != (Check{Metric: "p50_ms", Op: "<=", Bound: 20}) || w != (Window{Kind: WindowPeak}) {
		t.Errorf("median entry parsed to %+v over %+v, %v; want p50_ms <= 20 over peak", c, w, err)
	}
	b, err := exp.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b, "copy.yaml")
	if err != nil || !sameValues(*back, *exp) {
		t.Fatalf("read back %+v, %v\n%s", back.Thresholds, err, b)
	}
}

// Every bad entry is a problem naming its key path and line.
func TestThresholdsProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		line     int
		key, msg string
	}{
		{"no operator", "thresholds:\n  - p99_ms 250\n", 4, "thresholds[0].check", "want METRIC OP NUMBER"},
		{"unknown metric", "thresholds:\n  - ok\n  - p99ms < 250\n", 5, "thresholds[1].check", `unknown metric "p99ms"; did you mean "p99_ms"?`},
		{"not a number", "thresholds:\n  - check: throughput > lots\n", 4, "thresholds[0].check", `want a number after the operator, got "lots"`},
		{"percent elsewhere", "thresholds:\n  - p99_ms < 5%\n", 4, "thresholds[0].check", "only error_rate, tester_cpu_pct, host_busy_pct and host_steal_pct are percents"},
		{"bad window", "thresholds:\n  - check: p99_ms < 250\n    over: lastt 30s\n", 5, "thresholds[0].over", "want run, peak or"},
		{"bad last", "thresholds:\n  - check: p99_ms < 250\n    over: last 30 s\n", 5, "thresholds[0].over", "with a duration such as 30s"},
		{"zero last", "thresholds:\n  - check: p99_ms < 250\n    over: last 0s\n", 5, "thresholds[0].over", "more than 0"},
		{"whole-run metric over peak", "thresholds:\n  - check: fairness.jain > 0.9\n    over: peak\n", 5, "thresholds[0].over", "over must be run"},
		{"abort over peak", "thresholds:\n  - check: p99_ms < 250\n    over: peak\n    abort: true\n", 6, "thresholds[0].abort", "peak window is known only when the run ends"},
		{"abort on saturation", "thresholds:\n  - check: saturation.load > 1\n    abort: true\n", 5, "thresholds[0].abort", "cannot abort a run"},
		{"for without abort", "thresholds:\n  - check: p99_ms < 250\n    for: 10s\n", 5, "thresholds[0].for", "has no use without abort"},
		{"negative for", "thresholds:\n  - {check: p99_ms < 250, abort: true, for: -1s}\n", 4, "thresholds[0].for", "must not be negative"},
		{"unknown key", "thresholds:\n  - check: p99_ms < 250\n    abrot: true\n", 5, "thresholds[0].abrot", `did you mean "abort"?`},
		{"not a list", "thresholds: p99_ms < 250\n", 3, "thresholds", "want a list"},
		{"a list entry", "thresholds:\n  - [p99_ms, <, 250]\n", 4, "thresholds[0]", "want a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(base+tt.in), "e.yaml")
			ps := problems(t, err)
			for _, p := range ps {
				if p.Key == tt.key && p.Line == tt.line && strings.Contains(p.Msg, tt.msg) {
					return
				}
			}
			t.Errorf("problems %v; want %s at line %d: %q", ps, tt.key, tt.line, tt.msg)
		})
	}
}

// ParseCheck reads every operator, spacing and unit form.
func TestParseCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Check
	}{
		{"p99_ms < 250", Check{"p99_ms", "<", 250}},
		{"p99_ms<=250", Check{"p99_ms", "<=", 250}},
		{"throughput >= 1e3", Check{"throughput", ">=", 1000}},
		{" load > 50 ", Check{"load", ">", 50}},
		{"error_rate == 0%", Check{"error_rate", "==", 0}},
		{"error_rate < 0.5", Check{"error_rate", "<", 0.5}}, // a bare number is percent too
		{"p99.9_ms < 1000", Check{"p99.9_ms", "<", 1000}},
		{"median_ms < 20", Check{"p50_ms", "<", 20}},
		{"fairness.jain > 0.95", Check{"fairness.jain", ">", 0.95}},
		{"saturation.throughput >= 100", Check{"saturation.throughput", ">=", 100}},
	}
	for _, tt := range tests {
		got, err := ParseCheck(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseCheck(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "<", "p0_ms < 1", "p101_ms < 1", "p99_ms < NaN", "p99_ms < inf", "x < 1", "p99_ms =< 1"} {
		if c, err := ParseCheck(bad); err == nil {
			t.Errorf("ParseCheck(%q) = %+v, want an error", bad, c)
		}
	}
}

// Holds applies each operator, at the bound and either side of it.
func TestCheckHolds(t *testing.T) {
	t.Parallel()
	want := map[string][3]bool{ // at 9, 10, 11 against a bound of 10
		"<": {true, false, false}, "<=": {true, true, false}, ">": {false, false, true},
		">=": {false, true, true}, "==": {false, true, false},
	}
	for op, w := range want {
		c := Check{Metric: "load", Op: op, Bound: 10}
		for i, v := range []float64{9, 10, 11} {
			if c.Holds(v) != w[i] {
				t.Errorf("%v %s 10 = %v, want %v", v, op, c.Holds(v), w[i])
			}
		}
	}
}

// FuzzThreshold parses arbitrary checks and windows: never a panic, and
// an accepted check names a known metric and writes back to itself.
func FuzzThreshold(f *testing.F) {
	for _, s := range []string{"p99_ms < 250", "error_rate < 1%", "median_ms<=1e3", "p99.99_ms == 0", "fairness.jain >= .9", "<", "% < %"} {
		f.Add(s, "last 30s")
	}
	f.Add("load > 1", "peak")
	f.Add("load > 1", "last -1h")
	f.Fuzz(func(t *testing.T, check, over string) {
		c, err := ParseCheck(check)
		if err == nil {
			if !knownMetric(c.Metric) || !strings.Contains(check, c.Op) {
				t.Fatalf("ParseCheck(%q) = %+v", check, c)
			}
			text := c.Metric + " " + c.Op + " " + formatBound(c.Bound)
			if back, err := ParseCheck(text); err != nil || back != c {
				t.Fatalf("%q read back as %+v, %v; want %+v", text, back, err, c)
			}
		}
		w, err := ParseWindow(over)
		if err == nil && (w.Kind == WindowLast) != (w.Last > 0) {
			t.Fatalf("ParseWindow(%q) = %+v", over, w)
		}
		if err == nil {
			if back, err := ParseWindow(w.String()); err != nil || back != w {
				t.Fatalf("%q read back as %+v, %v; want %+v", w.String(), back, err, w)
			}
		}
		// The whole file: every problem of a bad entry names its line.
		in := base + "thresholds:\n  - check: " + quoteYAML(check) + "\n    over: " + quoteYAML(over) + "\n"
		if exp, err := Parse([]byte(in), "f.yaml"); err != nil {
			checkProblems(t, exp, err, "f.yaml")
		}
	})
}

// formatBound writes a bound as ParseCheck reads it.
func formatBound(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }

// quoteYAML writes s as a double-quoted YAML scalar.
func quoteYAML(s string) string { return strconv.Quote(s) }
