package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// Oha is oha (crates.io oha): Rust, tokio. Its JSON report is read.
type Oha struct{}

// Name implements Tool.
func (Oha) Name() string { return "oha" }

// Available implements Tool.
func (Oha) Available() error { _, err := lookTool("oha"); return err }

// Install implements Tool: `cargo install --locked oha` (a build from
// source; --locked keeps the versions oha was released with, which build
// with an older rustc than the newest of its dependencies need).
func (Oha) Install(ctx context.Context) error {
	cargo, err := lookTool("cargo")
	if err != nil {
		return fmt.Errorf("install oha: %w", err)
	}
	return installCmd(ctx, nil, cargo, "install", "--locked", "oha")
}

// Run implements Tool.
func (Oha) Run(ctx context.Context, l Load) (Result, error) {
	exe, err := lookTool("oha")
	if err != nil {
		return Result{}, err
	}
	c, err := runChild(ctx, "", exe, "-z", seconds(l.Duration), "-c", strconv.Itoa(l.Connections),
		"--no-tui", "--output-format", "json", l.URL)
	if err != nil {
		return Result{}, err
	}
	r, err := ParseOha(c.Stdout)
	if err != nil {
		return Result{}, fmt.Errorf("oha: %w", err)
	}
	r.CPUS, r.WallS = c.CPUS, c.WallS
	return r, nil
}

// ohaJSON is the part of oha's JSON report read here (times in seconds).
type ohaJSON struct {
	Summary struct {
		RequestsPerSec *float64 `json:"requestsPerSec"`
	} `json:"summary"`
	LatencyPercentiles struct {
		P50 *float64 `json:"p50"`
		P99 *float64 `json:"p99"`
	} `json:"latencyPercentiles"`
	StatusCodeDistribution map[string]int64 `json:"statusCodeDistribution"`
	ErrorDistribution      map[string]int64 `json:"errorDistribution"`
}

// ohaDeadline is how oha counts the requests in flight when -z ends: they
// are cut, not failed.
const ohaDeadline = "aborted due to deadline"

// ParseOha reads oha's JSON report.
func ParseOha(out []byte) (Result, error) {
	var j ohaJSON
	if err := json.Unmarshal(out, &j); err != nil {
		return Result{}, fmt.Errorf("json report: %w", err)
	}
	if j.Summary.RequestsPerSec == nil || j.LatencyPercentiles.P50 == nil || j.LatencyPercentiles.P99 == nil {
		return Result{}, fmt.Errorf("json report lacks summary.requestsPerSec or latencyPercentiles p50/p99")
	}
	r := Result{
		Tool:         "oha",
		RequestsPerS: *j.Summary.RequestsPerSec,
		P50Ms:        *j.LatencyPercentiles.P50 * 1e3,
		P99Ms:        *j.LatencyPercentiles.P99 * 1e3,
	}
	for code, n := range j.StatusCodeDistribution {
		r.Requests += n
		if len(code) != 3 || code[0] != '2' {
			r.Errors += n
		}
	}
	for what, n := range j.ErrorDistribution {
		if what != ohaDeadline {
			r.Errors += n
		}
	}
	return valid(r)
}
