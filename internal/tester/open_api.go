package tester

import (
	"context"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// RunOpen runs the open model r outside a tester (for `diperf bench http
// --rate`): the tester's own dispatcher, with workers client loops calling
// c. Every call, and every call dropped because no worker was free in
// time, is passed to record as a sample whose Start, End and Intended are
// ns on one local clock (only their differences mean anything); record is
// called from several goroutines at once. It returns "completed" once the
// stages are over and every call made or dropped, "stopped" when ctx ended
// first.
func RunOpen(ctx context.Context, r *protocol.RateDesc, workers int, c client.Client, record func(sample.Sample)) string {
	return runOpen(ctx, r, workers, c, clock.NewLocal(0, 0), funcSink(record))
}

// funcSink is an openSink that hands each sample to a function.
type funcSink func(sample.Sample)

func (f funcSink) callAt(ctx context.Context, c client.Client, clk *clock.Local, client uint32, intended int64) sample.Status {
	start := clk.Now()
	r := c.Call(ctx)
	end := clk.Now() - int64(r.Stopping) // the call ended when it was cut off
	f(sample.Sample{Client: client, Start: start, End: end, Intended: intended,
		Status: r.Status, Bytes: r.Bytes, Err: r.Err, Phases: r.Phases, Extras: r.Extras})
	return r.Status
}

func (f funcSink) add(s sample.Sample) { f(s) }
