package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

// Wrk is wrk (Debian package wrk): C, event loop per thread. A Lua done()
// script prints its figures as one JSON line after its own report.
type Wrk struct {
	Threads int // wrk -t (0 = 2, wrk's default; at most the connections)
}

// Name implements Tool.
func (Wrk) Name() string { return "wrk" }

// Available implements Tool.
func (Wrk) Available() error { _, err := lookTool("wrk"); return err }

// Install implements Tool.
func (Wrk) Install(ctx context.Context) error { return aptInstall(ctx, "wrk") }

// wrkDoneLua prints what wrk measured as one JSON line: latencies are in µs.
const wrkDoneLua = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\n{"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`

// Run implements Tool.
func (w Wrk) Run(ctx context.Context, l Load) (Result, error) {
	exe, err := lookTool("wrk")
	if err != nil {
		return Result{}, err
	}
	dir, script, err := writeTemp("diperf-wrk-*", "done.lua", wrkDoneLua)
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	threads := w.Threads
	if threads <= 0 {
		threads = 2
	}
	threads = min(threads, l.Connections)
	c, err := runChild(ctx, dir, exe, "-t", strconv.Itoa(threads), "-c", strconv.Itoa(l.Connections),
		"-d", seconds(l.Duration), "-s", script, l.URL)
	if err != nil {
		return Result{}, err
	}
	r, err := ParseWrk(c.Stdout)
	if err != nil {
		return Result{}, fmt.Errorf("wrk: %w", err)
	}
	r.CPUS, r.WallS = c.CPUS, c.WallS
	return r, nil
}

// wrkJSON is the line printed by wrkDoneLua.
type wrkJSON struct {
	Requests   int64 `json:"requests"`
	DurationUs int64 `json:"duration_us"`
	Errors     int64 `json:"errors"`
	P50Us      int64 `json:"p50_us"`
	P99Us      int64 `json:"p99_us"`
}

// ParseWrk reads wrk's output ending with the JSON line of wrkDoneLua.
func ParseWrk(out []byte) (Result, error) {
	line, err := lastJSONLine(out)
	if err != nil {
		return Result{}, err
	}
	var j wrkJSON
	if err := json.Unmarshal(line, &j); err != nil {
		return Result{}, fmt.Errorf("the done() line %q: %w", line, err)
	}
	if j.DurationUs <= 0 || j.Requests < 0 {
		return Result{}, fmt.Errorf("the done() line %q: no duration or negative requests", line)
	}
	return valid(Result{
		Tool:         "wrk",
		Requests:     j.Requests,
		Errors:       j.Errors,
		RequestsPerS: float64(j.Requests) / (float64(j.DurationUs) / 1e6),
		P50Ms:        float64(j.P50Us) / 1e3,
		P99Ms:        float64(j.P99Us) / 1e3,
	})
}
