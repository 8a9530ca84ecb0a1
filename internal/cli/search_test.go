package cli

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/search"
)

// searchFile is an open-model experiment of 2 minutes with a search key.
const searchFile = `name: s
client: {exec: ["true"]}
schedule:
  tester_duration: 2m
  rate: {arrivals: poisson}
search:
  slo: ["p99_ms < 200"]
  precision: 10%
  max_rate: 1000
`

// writeSearchFile writes data as an experiment file and returns its path.
func writeSearchFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "e.yaml")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadSearch reads path with diperf search's flags args over it.
func loadSearch(t *testing.T, path string, args ...string) (*experiment.Experiment, error) {
	t.Helper()
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := addSearchFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	sets, err := sf.sets(fs)
	if err != nil {
		return nil, err
	}
	return experiment.LoadWith(path, sets)
}

// The file's search key alone: the precision as a share, the budget the
// testers' duration, the first load max_rate/16.
func TestSearchConfigFromFile(t *testing.T) {
	t.Parallel()
	exp, err := loadSearch(t, writeSearchFile(t, searchFile))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := searchConfig(exp)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.SLOs) != 1 || cfg.SLOs[0].Text != "p99_ms < 200" || cfg.Precision != 0.1 || cfg.MaxRate != 1000 || cfg.Start != 62.5 ||
		cfg.Budget != 2*time.Minute {
		t.Errorf("config %+v", cfg)
	}
}

// Flags put their values over the file's search key, and make one of a
// file that has none.
func TestSearchFlagsOverride(t *testing.T) {
	t.Parallel()
	for name, file := range map[string]string{"over the key": searchFile, "no key": strings.Split(searchFile, "search:")[0]} {
		exp, err := loadSearch(t, writeSearchFile(t, file), "--slo", "p99_ms < 50", "--slo", `error_rate < 1%`,
			"--precision", "2%", "--max-rate", "400", "--start", "20", "--time-budget", "90s", "--min-capacity", "300")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cfg, err := searchConfig(exp)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(cfg.SLOs) != 2 || cfg.SLOs[0].Text != "p99_ms < 50" || cfg.SLOs[1].Text != "error_rate < 1%" || cfg.Precision != 0.02 ||
			cfg.MaxRate != 400 || cfg.Start != 20 || cfg.Budget != 90*time.Second || exp.Search.MinCapacity != 300 {
			t.Errorf("%s: config %+v, min capacity %g", name, cfg, exp.Search.MinCapacity)
		}
	}
}

// A flag's bad value is refused with the key it sets, like the file's.
func TestSearchFlagsRefused(t *testing.T) {
	t.Parallel()
	path := writeSearchFile(t, searchFile)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--max-rate", "NaN"}, "search.max_rate: must be a finite load"},
		{[]string{"--start", "-1"}, "search.start: must be a finite load of 0 or more, got -1"},
		{[]string{"--start", "2000"}, "search.start: the first load, 2000, is above the highest, 1000"},
		{[]string{"--max-rate", "lots"}, `--max-rate: want a number, got "lots"`},
		{[]string{"--precision", "0%"}, ""}, // 0: the default
		{[]string{"--precision", "100%"}, "search.precision: must lie in [0.1%, 100%)"},
		{[]string{"--time-budget", "5m"}, "search.time_budget: the search runs within the testers' duration"},
		{[]string{"--slo", "p99_ms > 5"}, "search.slo[0]: an objective is an upper bound a load can meet"},
		{[]string{"--slo", `p99_ms < 5", "x`}, `search.slo[0]: p99_ms: want a number after the operator, got "5\", \"x"`}, // one objective, quoted
	}
	for _, tt := range tests {
		_, err := loadSearch(t, path, tt.args...)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%q: %v; want %q", tt.args, err, tt.want)
		}
	}
}

// diperf search refuses, with exit code 2, an experiment with no
// objectives, before anything starts.
func TestSearchCmdNoObjective(t *testing.T) {
	t.Parallel()
	path := writeSearchFile(t, strings.Replace(strings.Split(searchFile, "search:")[0], "{arrivals: poisson}", "100", 1))
	var out, errb bytes.Buffer
	if code := Main([]string{"search", "--ui", "off", path}, &out, &errb); code != errs.CodeUsage || !strings.Contains(errb.String(), `give the objectives: --slo "p99_ms < 200"`) {
		t.Errorf("exit %d, stderr %s", code, errb.String())
	}
}

// The exit code of each verdict: 3 when no load meets the objectives or
// the capacity is below the minimum asked, 1 when the search gave no
// answer or its file was refused, 0 for a capacity.
func TestSearchExitCodes(t *testing.T) {
	t.Parallel()
	lo, hi := 400.0, 420.0
	block := func(verdict string, capacity, breaks *float64, minCap float64) *analyze.Summary {
		return &analyze.Summary{Search: &analyze.SearchSummary{Verdict: verdict, Capacity: capacity, Interval: [2]*float64{capacity, breaks},
			BreaksAt: breaks, MinCapacity: minCap, Unit: analyze.SearchUnitRate}}
	}
	tests := []struct {
		name string
		s    *analyze.Summary
		code int
	}{
		{"no search", &analyze.Summary{}, errs.CodeOK},
		{"capacity", block(search.VerdictCapacity, &lo, &hi, 0), errs.CodeOK},
		{"capacity at the minimum", block(search.VerdictCapacity, &lo, &hi, 400), errs.CodeOK},
		{"capacity below the minimum", block(search.VerdictCapacity, &lo, &hi, 401), errs.CodeRefused},
		{"holds at max", block(search.VerdictHoldsAtMax, &lo, nil, 0), errs.CodeOK},
		{"fails at lowest", block(search.VerdictFailsAtLowest, nil, &hi, 0), errs.CodeRefused},
		{"budget out with a bracket", block(search.VerdictBudgetOut, &lo, nil, 0), errs.CodeOK},
		{"budget out with nothing", block(search.VerdictBudgetOut, nil, nil, 0), errs.CodeFailed},
		{"tester-limited", block(search.VerdictTesterLimited, &lo, nil, 0), errs.CodeFailed},
		{"no data", block(search.VerdictNoData, nil, nil, 0), errs.CodeFailed},
		{"refused", &analyze.Summary{SearchRefused: "search.json: 9 steps in 2 s"}, errs.CodeFailed},
	}
	for _, tt := range tests {
		if code := errs.Code(searchErr(tt.s)); code != tt.code {
			t.Errorf("%s: exit %d, want %d (%v)", tt.name, code, tt.code, searchErr(tt.s))
		}
	}
}
