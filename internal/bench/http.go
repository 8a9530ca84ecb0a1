package bench

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/protocol"
)

// HTTPOptions configure `diperf bench http`: diperf's built-in HTTP
// client in a closed loop of Connections connections for Duration, or
// with Rate the open model.
type HTTPOptions struct {
	Desc        protocol.HTTPDesc  // the request
	Timeout     time.Duration      // a request past this is a timeout
	Connections int                // concurrent connections (with Rate: workers)
	Duration    time.Duration      // how long the closed loop runs (Rate carries its own)
	Rate        *protocol.RateDesc // nil: the closed loop; else the open model
	Engine      string             // "auto", "loop" (the event loop) or "call" (a goroutine per connection)
}

// HTTPReport is what RunHTTP measured: *HTTPResult (the closed loop) or
// *HTTPRateResult (the open model), each written as one JSON line.
type HTTPReport interface {
	// Summary is the measurement in a line for people.
	Summary() string
}

// RunHTTP builds the client o describes and runs the closed loop or, with
// o.Rate, the open model on it. A request or engine that cannot be run is
// a usage error.
func RunHTTP(ctx context.Context, o HTTPOptions) (HTTPReport, error) {
	c, err := client.NewHTTPClient(o.Desc, o.Timeout)
	if err != nil {
		return nil, errs.Usage(err, "check --url and the request flags")
	}
	if cl, ok := c.(interface{ Close() error }); ok {
		defer cl.Close()
	}
	lp, loopOK := c.(client.Looper)
	switch o.Engine {
	case "call":
		loopOK = false
		c = callOnly{c} // the open model then takes the dispatcher
	case "loop":
		if !loopOK {
			return nil, errs.Usagef("--engine loop serves plain http:// HTTP/1.1 keep-alive on Linux only")
		}
	case "auto":
	default:
		return nil, errs.Usagef("--engine must be auto, loop or call")
	}
	if o.Rate != nil {
		return runHTTPRate(ctx, o.Desc.URL, c, o.Rate, o.Connections), nil
	}
	r := runHTTPClosed(ctx, c, lp, loopOK, o.Connections, o.Duration)
	r.url = o.Desc.URL
	return r, nil
}

// callOnly hides a client's event loops (Looper, OpenLooper): only its
// Call is seen.
type callOnly struct{ client.Client }

// HTTPResult is the JSON line `diperf bench http` ends with.
type HTTPResult struct {
	Engine          string  `json:"engine"` // "loop" (the event loop) or "call" (a goroutine per connection)
	Connections     int     `json:"connections"`
	Requests        int64   `json:"requests"` // calls that ended, of any status
	Errors          int64   `json:"errors"`   // calls that did not end OK
	FirstError      string  `json:"first_error,omitempty"`
	WallS           float64 `json:"wall_s"`
	RequestsPerS    float64 `json:"requests_per_s"`
	P50Ms           float64 `json:"p50_ms"`
	P99Ms           float64 `json:"p99_ms"`
	CPUS            float64 `json:"cpu_s"` // user+system CPU of this process over the run
	RequestsPerCPUS float64 `json:"requests_per_cpu_s"`
	url             string
}

// Summary is the closed loop's measurement in a line for people.
func (r *HTTPResult) Summary() string {
	return fmt.Sprintf("%s: %d requests (%d errors) in %.1f s: %.0f req/s, p50 %.3f ms, p99 %.3f ms, %.2f CPU-s, %.0f req/CPU-s",
		r.url, r.Requests, r.Errors, r.WallS, r.RequestsPerS, r.P50Ms, r.P99Ms, r.CPUS, r.RequestsPerCPUS)
}

// processCPU is the user+system CPU time this process has used.
func processCPU() time.Duration { return selfCPU(syscall.RUSAGE_SELF) }
