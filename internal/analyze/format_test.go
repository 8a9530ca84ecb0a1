package analyze

import (
	"strings"
	"testing"
)

func TestFormatSummary(t *testing.T) {
	t.Parallel()
	base := Summary{
		Samples:        SampleCounts{Total: 100, OK: 95, Failed: 3, Lost: 1},
		Testers:        TesterCounts{Planned: 10, Started: 10},
		Throughput:     Stats{Unit: "calls/s", Min: 1, Median: 150, Mean: 140.25, Max: 161, StdDev: 12},
		ResponseTimeMs: RTSummary{Min: 10, Median: 50, Mean: 51, Max: 300, StdDev: 20, P90: 80, P99: 200},
		Load:           LoadSummary{Max: 9.5},
		Peak:           Peak{StartS: 10, EndS: 50, Testers: 10},
		Fairness:       Fairness{Jain: 0.9987},
	}
	saturated, not := base, base
	saturated.Saturation = Saturation{Saturated: true, Load: 8.06, Throughput: 159.7}
	not.Saturation = Saturation{Load: 5, Throughput: 99.1}
	tests := []struct {
		name string
		s    Summary
		want []string
	}{
		// A saturated service reports its knee.
		{"saturated", saturated, []string{"saturated at load 8.1, 159.7 calls/s", "Throughput (calls/s)", "StdDev", "140.2", "Jain 0.999", "10 testers"}},
		// A service that never saturated is starred.
		{"not saturated", not, []string{"not saturated (*): highest load 5.0, 99.1 calls/s", "100 total = 95 ok + 3 failed; 1 lost in transport"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if err := FormatSummary(&b, &tc.s); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			lines := strings.Split(out, "\n")
			if len(lines[0]) != len(lines[1]) || len(lines[1]) != len(lines[2]) {
				t.Errorf("table rows not aligned:\n%s", out)
			}
		})
	}
}
