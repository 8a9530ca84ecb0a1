package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// benchHTTPResult is the JSON line `diperf bench http` ends with.
type benchHTTPResult struct {
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
}

// headerList is a repeatable --header "Name: value" flag.
type headerList [][2]string

func (h *headerList) String() string { return fmt.Sprint(*h) }

func (h *headerList) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("header %q is not Name: value", s)
	}
	*h = append(*h, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	return nil
}

// benchHTTPCmd is `diperf bench http`: diperf's built-in HTTP client in a
// closed loop, N connections, for a duration; with --rate, the open model
// (the tester's dispatcher, N workers).
func benchHTTPCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench http", "--url URL [flags]")
	d := protocol.HTTPDesc{}
	var headers headerList
	fs.StringVar(&d.URL, "url", "", "the URL to load (http:// or https://)")
	fs.StringVar(&d.Method, "method", "GET", "request method")
	fs.Var(&headers, "header", "a request header, Name: value (repeatable)")
	body := fs.String("body", "", "request body")
	fs.BoolVar(&d.NoKeepAlive, "no-keepalive", false, "a new connection per request")
	http2 := fs.Bool("http2", false, "HTTP/2 (ALPN for https, h2c prior knowledge for http)")
	fs.BoolVar(&d.Insecure, "insecure", false, "do not verify the server's certificate")
	conns := fs.Int("connections", 50, "concurrent connections, each a closed loop")
	dur := fs.Duration("duration", 10*time.Second, "how long to run")
	timeout := fs.Duration("timeout", 30*time.Second, "a request past this is a timeout")
	var rf rateFlags
	fs.Float64Var(&rf.rate, "rate", 0, "open model: requests/s, started on time whatever the answers (unset: the closed loop)")
	fs.StringVar(&rf.arrivals, "arrivals", protocol.ArrivalsUniform, "open model: uniform or poisson arrivals")
	fs.DurationVar(&rf.maxLate, "max-lateness", 0, "open model: a call that cannot start within this of its intended start is dropped (default: --timeout)")
	engine := fs.String("engine", "auto", "auto, loop (the event loop) or call (a goroutine per connection; with --rate the tester's dispatcher)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	switch {
	case d.URL == "":
		return errs.Usagef("--url is required")
	case *conns < 1 || *dur <= 0:
		return errs.Usagef("--connections and --duration must be positive")
	}
	var rd *protocol.RateDesc
	if givenFlags(fs)["rate"] {
		if rf.maxLate == 0 {
			rf.maxLate = *timeout
		}
		var err error
		if rd, err = rf.rateDesc(*dur); err != nil {
			return err
		}
	}
	d.Headers, d.Body = headers, []byte(*body)
	if *http2 {
		d.Version = "2"
	}
	c, err := client.NewHTTPClient(d, *timeout)
	if err != nil {
		return errs.Usage(err, "check --url and the request flags")
	}
	if cl, ok := c.(interface{ Close() error }); ok {
		defer cl.Close()
	}
	lp, loopOK := c.(client.Looper)
	switch *engine {
	case "call":
		loopOK = false
		c = callOnly{c} // the open model then takes the dispatcher
	case "loop":
		if !loopOK {
			return errs.Usagef("--engine loop serves plain http:// HTTP/1.1 keep-alive on Linux only")
		}
	case "auto":
	default:
		return errs.Usagef("--engine must be auto, loop or call")
	}
	if rd != nil {
		return benchRate(ctx, e, d.URL, c, rd, *conns)
	}
	r := runBenchHTTP(ctx, c, lp, loopOK, *conns, *dur)
	fmt.Fprintf(e.stderr, "%s: %d requests (%d errors) in %.1f s: %.0f req/s, p50 %.3f ms, p99 %.3f ms, %.2f CPU-s, %.0f req/CPU-s\n",
		d.URL, r.Requests, r.Errors, r.WallS, r.RequestsPerS, r.P50Ms, r.P99Ms, r.CPUS, r.RequestsPerCPUS)
	return printJSON(e, r)
}

// callOnly hides a client's event loops (Looper, OpenLooper): only its
// Call is seen.
type callOnly struct{ client.Client }

// benchTally gathers the calls of one engine goroutine.
type benchTally struct {
	hist     *hdr.Histogram // µs
	n, errs  int64
	firstErr string
}

func newBenchTally() *benchTally { return &benchTally{hist: hdr.New(1, 60_000_000, 3)} }

func (t *benchTally) add(start, end int64, r *client.Reply) {
	t.n++
	_ = t.hist.RecordValue(max((end-start)/1000, 1))
	if r.Status != sample.OK {
		t.errs++
		if t.firstErr == "" {
			t.firstErr = r.Err
		}
	}
}

// runBenchHTTP runs the closed loops and sums them up.
func runBenchHTTP(ctx context.Context, c client.Client, lp client.Looper, loop bool, conns int, dur time.Duration) benchHTTPResult {
	base := time.Now()
	now := func() int64 { return int64(time.Since(base)) }
	cpu0 := processCPU()
	total := newBenchTally()
	res := benchHTTPResult{Engine: "call", Connections: conns}
	until := now() + int64(dur)
	if loop {
		res.Engine = "loop"
		lp.Loop(ctx, conns, 0, until, now, func(_ uint32, start, end int64, r *client.Reply) { total.add(start, end, r) })
	} else {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range conns {
			wg.Go(func() {
				t := newBenchTally()
				for now() < until && ctx.Err() == nil {
					start := now()
					r := c.Call(ctx)
					t.add(start, now(), &r)
				}
				mu.Lock()
				defer mu.Unlock()
				total.merge(t)
			})
		}
		wg.Wait()
	}
	res.WallS = time.Since(base).Seconds()
	res.CPUS = (processCPU() - cpu0).Seconds()
	res.Requests, res.Errors, res.FirstError = total.n, total.errs, total.firstErr
	res.RequestsPerS = float64(res.Requests) / res.WallS
	if res.CPUS > 0 {
		res.RequestsPerCPUS = float64(res.Requests) / res.CPUS
	}
	res.P50Ms = float64(total.hist.ValueAtQuantile(50)) / 1000
	res.P99Ms = float64(total.hist.ValueAtQuantile(99)) / 1000
	return res
}

func (t *benchTally) merge(o *benchTally) {
	t.hist.Merge(o.hist)
	t.n += o.n
	t.errs += o.errs
	if t.firstErr == "" {
		t.firstErr = o.firstErr
	}
}
