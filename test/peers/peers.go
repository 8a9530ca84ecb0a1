// Package peers measures other HTTP load generators (wrk, k6, oha, hey,
// Locust) against nginx on loopback, so that diperf's own HTTP client can be
// compared with them in one run: each tool runs as a child process, closed
// loop, N keep-alive connections for a duration; its own output gives
// requests/s and latency percentiles, and the kernel's accounting of the
// child's process tree (wait4 rusage) gives the CPU it spent.
package peers

import (
	"context"
	"errors"
	"time"
)

// Load is one closed-loop measurement: Connections keep-alive connections,
// each sending its next request when the previous answer arrived, for
// Duration, against URL.
type Load struct {
	URL         string
	Connections int
	Duration    time.Duration
}

// Result holds one tool's figures for one run of a Load.
type Result struct {
	Tool         string  `json:"tool"`
	Requests     int64   `json:"requests"`       // answered requests, as the tool counted them
	Errors       int64   `json:"errors"`         // failed requests or non-2xx answers, as the tool counted them
	RequestsPerS float64 `json:"requests_per_s"` // the tool's own throughput figure
	P50Ms        float64 `json:"p50_ms"`         // median response time
	P99Ms        float64 `json:"p99_ms"`         // 99th percentile response time
	CPUS         float64 `json:"cpu_s"`          // user+system CPU of the tool's process tree
	WallS        float64 `json:"wall_s"`         // how long the tool's process lived
}

// RequestsPerCPUS is requests answered per CPU-second of the load generator
// (0 when no CPU was recorded).
func (r Result) RequestsPerCPUS() float64 {
	if r.CPUS <= 0 {
		return 0
	}
	return float64(r.Requests) / r.CPUS
}

// Tool is one load generator. Adding a tool is one type that implements it.
type Tool interface {
	// Name is the tool's short name, as in the table.
	Name() string
	// Available returns nil when the tool can run here, otherwise why not.
	Available() error
	// Install installs the tool (only when asked: never at import).
	Install(ctx context.Context) error
	// Run runs one closed-loop measurement and returns the tool's figures.
	Run(ctx context.Context, l Load) (Result, error)
}

// ErrNotInstalled is wrapped by Available when a tool's program is missing.
var ErrNotInstalled = errors.New("not installed")

// Defaults returns diperf's own client and the standard peers: wrk, k6,
// oha and hey (Locust, being far slower, is opt-in: add Locust{}).
func Defaults() []Tool {
	return []Tool{Diperf{}, Wrk{}, K6{}, Oha{}, Hey{}}
}
