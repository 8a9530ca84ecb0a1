package cli

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/protocol"
)

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
// (the tester's dispatcher, N workers). bench.RunHTTP runs it.
func benchHTTPCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench http", "--url URL [flags]")
	o := bench.HTTPOptions{}
	var headers headerList
	fs.StringVar(&o.Desc.URL, "url", "", "the URL to load (http:// or https://)")
	fs.StringVar(&o.Desc.Method, "method", "GET", "request method")
	fs.Var(&headers, "header", "a request header, Name: value (repeatable)")
	body := fs.String("body", "", "request body")
	fs.BoolVar(&o.Desc.NoKeepAlive, "no-keepalive", false, "a new connection per request")
	http2 := fs.Bool("http2", false, "HTTP/2 (ALPN for https, h2c prior knowledge for http)")
	fs.BoolVar(&o.Desc.Insecure, "insecure", false, "do not verify the server's certificate")
	fs.IntVar(&o.Connections, "connections", 50, "concurrent connections, each a closed loop")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "how long to run")
	fs.DurationVar(&o.Timeout, "timeout", 30*time.Second, "a request past this is a timeout")
	var rf rateFlags
	fs.Float64Var(&rf.rate, "rate", 0, "open model: requests/s, started on time whatever the answers (unset: the closed loop)")
	fs.StringVar(&rf.arrivals, "arrivals", protocol.ArrivalsUniform, "open model: uniform or poisson arrivals")
	fs.DurationVar(&rf.maxLate, "max-lateness", 0, "open model: a call that cannot start within this of its intended start is dropped (default: --timeout)")
	fs.StringVar(&o.Engine, "engine", "auto", "auto, loop (the event loop) or call (a goroutine per connection; with --rate the tester's dispatcher)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	switch {
	case o.Desc.URL == "":
		return errs.Usagef("--url is required")
	case o.Connections < 1 || o.Duration <= 0:
		return errs.Usagef("--connections and --duration must be positive")
	}
	if givenFlags(fs)["rate"] {
		if rf.maxLate == 0 {
			rf.maxLate = o.Timeout
		}
		var err error
		if o.Rate, err = rf.rateDesc(o.Duration); err != nil {
			return err
		}
	}
	o.Desc.Headers, o.Desc.Body = headers, []byte(*body)
	if *http2 {
		o.Desc.Version = "2"
	}
	r, err := bench.RunHTTP(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, r.Summary())
	return printJSON(e, r)
}

// rateFlags are bench http's open-model settings.
type rateFlags struct {
	rate     float64
	arrivals string
	maxLate  time.Duration
}

// rateDesc checks the open-model flags and builds the one-stage rate of
// the run.
func (f *rateFlags) rateDesc(dur time.Duration) (*protocol.RateDesc, error) {
	if math.IsNaN(f.rate) || f.rate <= 0 || f.rate > protocol.MaxRate {
		return nil, errs.Usagef("--rate must be a number of calls/s above 0 and at most %d, got %v", protocol.MaxRate, f.rate)
	}
	if f.maxLate <= 0 {
		return nil, errs.Usagef("--max-lateness must be positive")
	}
	r := &protocol.RateDesc{Arrivals: f.arrivals, MaxLatenessNs: int64(f.maxLate), Seed: 1,
		Stages: []protocol.StageDesc{{DurationNs: int64(dur), From: f.rate, To: f.rate}}}
	if err := r.Validate(); err != nil {
		return nil, errs.Usage(err, "--arrivals is uniform or poisson")
	}
	return r, nil
}
