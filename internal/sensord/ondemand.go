package sensord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/forecast"
	"github.com/diperf/diperf/internal/sensor"
)

// Waits of the poll for on-demand tests (variables for the tests): the
// long poll, the pause after an error.
var (
	probePoll  = 20 * time.Second
	probeRetry = 2 * time.Second
)

// maxQueued bounds the on-demand tests handed to the loop and not yet
// run; past it one is failed at once.
const maxQueued = 8

// onDemand polls the directory for this sensor's on-demand tests, hands
// each to the loop (reqs), and answers each with its result or why it
// did not run.
type onDemand struct {
	dir    *dirAdapter
	name   string
	reqs   chan sensor.Request
	stderr io.Writer
}

func newOnDemand(dir *dirAdapter, name string, stderr io.Writer) *onDemand {
	return &onDemand{dir: dir, name: name, reqs: make(chan sensor.Request, maxQueued), stderr: stderr}
}

// poll claims this sensor's probes until ctx ends; an error is said once
// until the polls work again.
func (o *onDemand) poll(ctx context.Context) {
	var said string
	for ctx.Err() == nil {
		ps, err := o.dir.c.ClaimProbes(ctx, o.name, probePoll)
		if err != nil {
			if ctx.Err() == nil && err.Error() != said {
				fmt.Fprintf(o.stderr, "diperf sensor: asking the directory for on-demand tests: %v; trying again every %v\n", err, probeRetry)
				said = err.Error()
			}
			clock.Sleep(ctx, retryAfter(err))
			continue
		}
		said = ""
		for _, p := range ps {
			o.hand(ctx, p)
		}
	}
}

// retryAfter is the pause after a failed poll: probeRetry, a minute
// when the directory has no such route (one older than the probes).
func retryAfter(err error) time.Duration {
	var api *directory.APIError
	if errors.As(err, &api) && (api.Status == http.StatusNotFound && api.Field == "" || api.Status == http.StatusMethodNotAllowed) {
		return time.Minute
	}
	return probeRetry
}

// hand gives probe p to the loop, or fails it when the loop has
// maxQueued waiting already.
func (o *onDemand) hand(ctx context.Context, p directory.Probe) {
	fmt.Fprintf(o.stderr, "diperf sensor: on-demand %s test to %s (probe %s)\n", p.Kind, p.Dst, p.ID)
	req := sensor.Request{Test: sensor.Test{Peer: sensor.Peer{Name: p.Dst, Addr: p.DstAddr}, Kind: sensor.Kind(p.Kind)},
		Done: func(r sensor.Result, err error) { o.answer(ctx, p, r, err) }}
	select {
	case o.reqs <- req:
	default:
		o.answer(ctx, p, sensor.Result{}, fmt.Errorf("%d on-demand tests are waiting already", maxQueued))
	}
}

// drain fails the tests handed and never run: the sensor stops.
func (o *onDemand) drain() {
	for {
		select {
		case req := <-o.reqs:
			req.Done(sensor.Result{}, errors.New("the sensor stopped"))
		default:
			return
		}
	}
}

// answer gives the directory p's result, with the forecast it leads to,
// or why it was not run.
func (o *onDemand) answer(ctx context.Context, p directory.Probe, r sensor.Result, runErr error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var err error
	if runErr != nil {
		_, err = o.dir.c.AnswerProbe(ctx, p.ID, directory.ProbeAnswer{Reason: reason(runErr)})
	} else {
		err = o.dir.answer(ctx, p.ID, r)
	}
	if err != nil {
		fmt.Fprintf(o.stderr, "diperf sensor: answering probe %s: %v\n", p.ID, err)
	}
}

// answer gives probe id its result r; one the directory no longer takes
// as the probe's (it expired meanwhile) is written as an ordinary result,
// and one it does not take now is kept to send again: a measurement is
// never lost. The forecast follows, as after a scheduled test.
func (d *dirAdapter) answer(ctx context.Context, id string, r sensor.Result) error {
	dr, value := dirResult(r)
	f, ok := d.forecast(r.Dst+"/"+string(r.Kind), forecast.Measurement{At: r.At, Value: value})
	_, err := d.c.AnswerProbe(ctx, id, directory.ProbeAnswer{Result: &dr})
	var api *directory.APIError
	switch {
	case errors.As(err, &api) && (api.Status == http.StatusGone || api.Status == http.StatusNotFound || api.Status == http.StatusConflict):
		if serr := d.send(ctx, dr); serr != nil {
			return fmt.Errorf("%w; writing it as an ordinary result: %w", err, serr)
		}
	case err != nil:
		d.keep(dr) // sent at the next write or query; the probe expires
		return fmt.Errorf("%w (its result is kept, to send as an ordinary one)", err)
	}
	return d.addForecast(ctx, r, f, ok)
}

// reason is err as a probe's reason: printable, at most
// directory.MaxReason bytes.
func reason(err error) string {
	s := strings.Map(func(r rune) rune {
		if r != ' ' && (r == utf8.RuneError || !unicode.IsPrint(r)) {
			return ' '
		}
		return r
	}, err.Error())
	if len(s) > directory.MaxReason {
		s = strings.ToValidUTF8(s[:directory.MaxReason-3], "") + "..."
	}
	return s
}
