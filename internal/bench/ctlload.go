package bench

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// connectors is how many testers connect at once: the controller's own
// cap on handshakes in progress (controller.maxHandshakes); more would
// only wait in its queue.
const connectors = 64

// settle is how long the controller is left alone with every tester
// connected before its memory is read.
const settle = 2 * time.Second

// loadIt connects the testers, measures the controller with them idle,
// has them send for o.Duration and waits for every session to end.
func (ch *child) loadIt(ctx context.Context, o ControllerOptions, secret []byte, r *ControllerResult, progress io.Writer) error {
	addr, err := waitEvent(ch.dir, "listening", time.Minute, ch.alive)
	if err != nil {
		return err
	}
	if _, err := waitEvent(ch.dir, "batch-start", time.Minute, ch.alive); err != nil {
		return err
	}
	base := ch.sample()
	r.BaseRSSMB = mb(base)
	fmt.Fprintf(progress, "controller pid %d on %s (RSS %.1f MB); connecting %d testers from %d source addresses ...\n",
		ch.cmd.Process.Pid, addr, r.BaseRSSMB, o.Testers, r.Sources)
	counts := &genCounts{}
	stopProgress := ch.progress(counts, progress)
	defer stopProgress()
	t0 := time.Now()
	slots := make([]atomic.Pointer[loadTester], o.Testers)
	stopBeats := heartbeats(slots)
	testers, err := connectAll(ctx, addr, slots, secret, counts)
	if err != nil {
		stopBeats()
		return err
	}
	r.ConnectS = round(time.Since(t0).Seconds(), 2)
	time.Sleep(settle)
	idle := ch.sample()
	stopBeats()
	r.BytesPerTester = round((float64(idle)-float64(base))/float64(o.Testers), 0)
	fmt.Fprintf(progress, "%d testers connected in %.1f s; controller RSS %.1f MB (%.0f bytes per tester); sending %.0f samples/s for %v ...\n",
		o.Testers, r.ConnectS, mb(idle), r.BytesPerTester, o.Rate, o.Duration)
	sendEnd := sendAll(testers, o, r)
	cpu, _ := procCPU(ch.cmd.Process.Pid)
	ch.mu.Lock()
	ch.cpuEnd = cpu
	ch.mu.Unlock()
	r.DrainS = round(time.Since(sendEnd).Seconds(), 2)
	r.Sent, r.Acked, r.FailedSessions = counts.sent.Load(), counts.acked.Load(), counts.failed.Load()
	fmt.Fprintf(progress, "sessions over (%.2f s after the last sample); the controller writes the run directory ...\n", r.DrainS)
	return nil
}

// connectAll connects tester slots 0..len(slots)-1 into slots,
// connectors at a time, and returns them.
func connectAll(ctx context.Context, addr string, slots []atomic.Pointer[loadTester], secret []byte, counts *genCounts) ([]*loadTester, error) {
	n := len(slots)
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(connectors, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				t, err := dialTester(ctx, addr, i, n, secret, counts)
				if err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
				slots[i].Store(t)
			}
		})
	}
	wg.Wait()
	testers := make([]*loadTester, n)
	for i := range slots {
		testers[i] = slots[i].Load()
		if first != nil && testers[i] != nil {
			testers[i].conn.Close()
		}
	}
	if first != nil {
		return nil, first
	}
	return testers, nil
}

// heartbeats says, for every tester connected so far that sent nothing
// for half its heartbeat period (checked every second), that it is alive,
// as a tester's heartbeat loop does from its handshake on, until stop is
// called.
func heartbeats(slots []atomic.Pointer[loadTester]) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
			}
			for i := range slots {
				if t := slots[i].Load(); t != nil && time.Since(t.conn.LastWrite()) >= time.Duration(t.desc.HeartbeatNs)/2 {
					_ = t.conn.Write(protocol.TypeHeartbeat, nil)
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// sendAll has every tester send its share of o.Rate for o.Duration and
// returns when the last session ended; the time returned is when the
// sending was planned to end.
func sendAll(testers []*loadTester, o ControllerOptions, r *ControllerResult) time.Time {
	start := time.Now().Add(100 * time.Millisecond)
	each := o.Rate / float64(len(testers))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, t := range testers {
		wg.Go(func() {
			if err := t.run(start, o.Duration, each); err != nil {
				t.counts.failed.Add(1)
				mu.Lock()
				if r.FirstError == "" {
					r.FirstError = err.Error()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return start.Add(o.Duration)
}

// progress prints, every second, what the generator sent and the
// controller acknowledged in that second, and the controller's memory.
func (ch *child) progress(c *genCounts, w io.Writer) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		var sent, acked uint64
		lastCPU, _ := procCPU(ch.cmd.Process.Pid)
		for {
			select {
			case <-done:
				return
			case <-tk.C:
			}
			rss := ch.sample()
			cpu, _ := procCPU(ch.cmd.Process.Pid)
			s, a := c.sent.Load(), c.acked.Load()
			fmt.Fprintf(w, "sent %9d/s  received %9d/s  controller RSS %7.1f MB  CPU %3.0f%%\n",
				s-sent, a-acked, mb(rss), 100*(cpu-lastCPU).Seconds())
			sent, acked, lastCPU = s, a, cpu
		}
	})
	return func() { close(done); wg.Wait() }
}
