package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// K6 is Grafana k6 (go.k6.io/k6): Go, a JavaScript VM per virtual user.
// Each of its VUs is one keep-alive connection calling back to back; its
// --summary-export JSON is read.
type K6 struct{}

// Name implements Tool.
func (K6) Name() string { return "k6" }

// Available implements Tool.
func (K6) Available() error { _, err := lookTool("k6"); return err }

// Install implements Tool (a build from source: minutes).
func (K6) Install(ctx context.Context) error { return goInstall(ctx, "go.k6.io/k6@latest") }

// k6Script makes one GET per iteration, no think time.
const k6Script = `import http from 'k6/http';
export default function () { http.get(__ENV.DIPERF_URL); }
`

// Run implements Tool.
func (K6) Run(ctx context.Context, l Load) (Result, error) {
	exe, err := lookTool("k6")
	if err != nil {
		return Result{}, err
	}
	dir, script, err := writeTemp("diperf-k6-*", "script.js", k6Script)
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	summary := filepath.Join(dir, "summary.json")
	c, err := runChild(ctx, dir, exe, "run", "--quiet", "--no-color", "--no-usage-report",
		"--vus", strconv.Itoa(l.Connections), "--duration", seconds(l.Duration),
		"--summary-trend-stats", "med,p(99)", "--summary-export", summary,
		"-e", "DIPERF_URL="+l.URL, script)
	if err != nil {
		return Result{}, err
	}
	out, err := os.ReadFile(summary)
	if err != nil {
		return Result{}, fmt.Errorf("k6 summary: %w", err)
	}
	r, err := ParseK6(out)
	if err != nil {
		return Result{}, fmt.Errorf("k6: %w", err)
	}
	r.CPUS, r.WallS = c.CPUS, c.WallS
	return r, nil
}

// k6Summary is the part of k6's --summary-export file read here.
type k6Summary struct {
	Metrics struct {
		HTTPReqs struct {
			Count *float64 `json:"count"`
			Rate  *float64 `json:"rate"`
		} `json:"http_reqs"`
		Duration struct {
			Med *float64 `json:"med"`
			P99 *float64 `json:"p(99)"`
		} `json:"http_req_duration"`
		Failed struct {
			Passes float64 `json:"passes"` // a rate metric's "passes" are its true values: failed requests
		} `json:"http_req_failed"`
	} `json:"metrics"`
}

// ParseK6 reads k6's --summary-export JSON (run with --summary-trend-stats
// including med and p(99)); durations there are in ms.
func ParseK6(out []byte) (Result, error) {
	var s k6Summary
	if err := json.Unmarshal(out, &s); err != nil {
		return Result{}, fmt.Errorf("summary export: %w", err)
	}
	m := s.Metrics
	if m.HTTPReqs.Count == nil || m.HTTPReqs.Rate == nil || m.Duration.Med == nil || m.Duration.P99 == nil {
		return Result{}, fmt.Errorf("summary export lacks http_reqs count/rate or http_req_duration med/p(99)")
	}
	return valid(Result{
		Tool:         "k6",
		Requests:     int64(*m.HTTPReqs.Count),
		Errors:       int64(m.Failed.Passes),
		RequestsPerS: *m.HTTPReqs.Rate,
		P50Ms:        *m.Duration.Med,
		P99Ms:        *m.Duration.P99,
	})
}
