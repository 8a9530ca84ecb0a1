package tester

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// openSink is where the open model's calls and drops go: the tester's
// outbox.
type openSink interface {
	callAt(ctx context.Context, c client.Client, clk *clock.Local, client uint32, intended int64) sample.Status
	add(s sample.Sample)
}

// maxOpenQueue bounds the calls waiting for a free client (8 bytes each).
const maxOpenQueue = 1 << 16

// runOpen runs the open model r with n clients (workers 0 to n−1) and
// returns "completed" once the stages are over and every call made or
// dropped, "stopped" when ctx ended first.
//
// One dispatcher goroutine computes the intended starts (arrivals), sleeps
// on one timer until each is due and hands it to a free worker; every
// worker is one client index, and idle workers wait on one unbuffered
// channel, first come first served. Every call records its intended start
// (local ns, clk), so that its response time counts from it. A call due
// while every worker is busy waits, late, in a bounded FIFO queue; one
// that cannot start within r.MaxLatenessNs of its intended start is given
// up and recorded as a Dropped sample, never skipped. Nothing is allocated
// per call.
func runOpen(ctx context.Context, r *protocol.RateDesc, n int, c client.Client, clk *clock.Local, out openSink) string {
	return runOpenSteered(ctx, r, n, c, clk, out, nil)
}

// runOpenSteered is runOpen with the load steps of a steered run
// (steer.go; nil: none): the stages hold until the first step, then each
// step's rate until the next, until the stages' end. A steered run always
// uses the dispatcher (an event loop takes its intended starts ahead).
func runOpenSteered(ctx context.Context, r *protocol.RateDesc, n int, c client.Client, clk *clock.Local, out openSink, steps <-chan loadStep) string {
	if lp, ok := c.(client.OpenLooper); ok && steps == nil {
		return loopOpen(ctx, lp, r, n, clk, out)
	}
	d := newDispatcher(r, n, clk, out)
	if steps != nil {
		d.steered(steps)
	}
	var wg sync.WaitGroup
	for j := range max(n, 1) {
		wg.Go(func() {
			for due := range d.jobs {
				out.callAt(ctx, c, clk, uint32(j), localAt(clk, due))
			}
		})
	}
	why := d.run(ctx)
	close(d.jobs)
	wg.Wait()
	return why
}

// openQueue is how many of r's calls may wait for a free client: those
// due over the longest wait allowed at the peak rate, and two.
func openQueue(r *protocol.RateDesc) int {
	return int(min(math.Ceil(peakRate(r)*time.Duration(r.MaxLatenessNs).Seconds())+2, maxOpenQueue))
}

// dispatcher hands the open model's calls to the workers at their
// intended starts.
type dispatcher struct {
	arr      *arrivals
	length   time.Duration // the stages' total length
	maxLate  time.Duration
	jobs     chan time.Time // unbuffered: a send succeeds only to an idle worker
	clk      *clock.Local
	out      openSink
	n        uint32
	dropNext uint32 // client index a dropped call is recorded under, round robin
	lateErr  string // the Err of a call dropped for lateness
	fullErr  string // the Err of a call dropped because the queue was full
	queue    ring
	tm       sleeper // one timer for every wait

	steps <-chan loadStep // a steered run's load steps (nil: none)
	t0    time.Time       // the run's start
	next  time.Duration   // the next call's intended start, from t0
	more  bool            // whether there is a next call
}

func newDispatcher(r *protocol.RateDesc, n int, clk *clock.Local, out openSink) *dispatcher {
	maxLate := time.Duration(r.MaxLatenessNs)
	q := openQueue(r)
	return &dispatcher{
		arr: newArrivals(r), length: time.Duration(r.DurationNs()), maxLate: maxLate, jobs: make(chan time.Time), clk: clk, out: out,
		n:       uint32(max(n, 1)),
		lateErr: client.DroppedLate(maxLate),
		fullErr: client.DroppedFull(q),
		queue:   ring{buf: make([]time.Time, q)},
	}
}

// run dispatches until the stages are over and the queue empty, or ctx is
// done; it returns why it ended.
func (d *dispatcher) run(ctx context.Context) string {
	d.t0 = time.Now()
	d.next, d.more = d.arr.next()
	for {
		d.takeSteps()
		now := time.Now()
		for d.more && !d.t0.Add(d.next).After(now) {
			d.enqueue(d.t0.Add(d.next))
			d.next, d.more = d.arr.next()
		}
		d.dropLate(now)
		d.handOut()
		wake := d.t0.Add(d.next)
		if !d.more { // no call due: wake at the stages' end, if still ahead
			if wake = d.t0.Add(d.length); !now.Before(wake) {
				if d.queue.len() == 0 {
					return "completed"
				}
				wake = time.Time{}
			}
		}
		if !d.wait(ctx, wake) {
			d.dropAll(client.DroppedStopped)
			return "stopped"
		}
	}
}

// wait sleeps until next (the next call's intended start, or the stages'
// end; zero: neither), until the oldest waiting call is to be given up, or
// until a worker takes it, or until a load step comes (steer); it
// returns false when ctx is done.
func (d *dispatcher) wait(ctx context.Context, next time.Time) bool {
	wake := time.Duration(math.MaxInt64)
	if !next.IsZero() {
		wake = time.Until(next)
	}
	var jobs chan time.Time // nil: no send case when nothing waits
	var head time.Time
	if d.queue.len() > 0 {
		jobs, head = d.jobs, d.queue.peek()
		wake = min(wake, time.Until(head.Add(d.maxLate))+1)
	}
	select {
	case <-d.tm.arm(wake):
	case jobs <- head:
		d.queue.pop()
		d.tm.stop()
	case s := <-d.steps:
		d.tm.stop()
		d.steer(s)
	case <-ctx.Done():
		d.tm.stop()
		return false
	}
	return true
}

// enqueue queues a call due at due; when the queue is full its oldest call
// is given up to make room.
func (d *dispatcher) enqueue(due time.Time) {
	if d.queue.full() {
		d.drop(d.queue.pop(), d.fullErr)
	}
	d.queue.push(due)
}

// dropLate gives up the waiting calls that can no longer start within
// maxLate of their intended start.
func (d *dispatcher) dropLate(now time.Time) {
	for d.queue.len() > 0 && now.Sub(d.queue.peek()) > d.maxLate {
		d.drop(d.queue.pop(), d.lateErr)
	}
}

// dropAll gives up every waiting call.
func (d *dispatcher) dropAll(why string) {
	for d.queue.len() > 0 {
		d.drop(d.queue.pop(), why)
	}
}

// handOut gives the waiting calls, oldest first, to the idle workers.
func (d *dispatcher) handOut() {
	for d.queue.len() > 0 {
		select {
		case d.jobs <- d.queue.peek():
			d.queue.pop()
		default:
			return
		}
	}
}

// drop records a call due at due as given up now.
func (d *dispatcher) drop(due time.Time, why string) {
	now := d.clk.Now()
	d.out.add(sample.Sample{Client: d.dropNext, Start: now, End: now, Intended: localAt(d.clk, due),
		Status: sample.Dropped, Err: why})
	d.dropNext = (d.dropNext + 1) % d.n
}

// localAt returns the instant t, on the monotonic clock, as clk's local
// time in ns.
func localAt(clk *clock.Local, t time.Time) int64 {
	return clk.Now() - int64(time.Since(t))
}

// ring is a FIFO queue of intended starts in a fixed buffer.
type ring struct {
	buf  []time.Time
	head int
	n    int
}

func (q *ring) len() int        { return q.n }
func (q *ring) full() bool      { return q.n == len(q.buf) }
func (q *ring) peek() time.Time { return q.buf[q.head] }

func (q *ring) push(t time.Time) {
	q.buf[(q.head+q.n)%len(q.buf)] = t
	q.n++
}

func (q *ring) pop() time.Time {
	t := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return t
}
