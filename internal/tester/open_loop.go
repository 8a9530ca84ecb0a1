package tester

import (
	"context"
	"slices"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// openGrain is the event loop's least sleep between wakes for intended
// starts: calls due within it start together, at most this late. A
// twentieth of the 10 ms past which a call counts late; at 5,000 calls/s
// it makes about 2.5 calls per wake instead of one.
const openGrain = 500 * time.Microsecond

// loopOpen runs the open model r on a client that runs it itself (the
// HTTP event loop): the same arrivals, queue bound and drops as the
// dispatcher's, with the intended starts on clk from now.
func loopOpen(ctx context.Context, lp client.OpenLooper, r *protocol.RateDesc, n int, clk *clock.Local, out openSink) string {
	arr := newArrivals(r)
	t0 := clk.Now()
	plan := client.OpenPlan{
		Clients: max(n, 1),
		Next: func() (int64, bool) {
			off, ok := arr.next()
			return t0 + int64(off), ok
		},
		End:     t0 + r.DurationNs(),
		MaxLate: time.Duration(r.MaxLatenessNs),
		Queue:   openQueue(r),
		Grain:   openGrain,
	}
	return lp.LoopOpen(ctx, plan, clk.Now, func(id uint32, intended, start, end int64, rep *client.Reply) {
		out.add(sample.Sample{Client: id, Start: start, End: end, Intended: intended, Status: rep.Status,
			Bytes: rep.Bytes, Err: rep.Err, Phases: rep.Phases, Extras: slices.Clone(rep.Extras)})
	})
}
