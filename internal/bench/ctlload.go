package bench

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
)

// connectors is how many testers connect at once, shared by the
// generator processes: what the controller's cap on handshakes in
// progress was before issue 20 (it is now 1,024, 16 from one source:
// controller.maxHandshakes, maxHandshakesPerSource), which the figures
// in docs/benchmarks.md were measured with.
const connectors = 64

// settle is how long the controller is left alone with every tester
// connected before its memory is read.
const settle = 2 * time.Second

// startLead is how far ahead of now the common start of the sending is
// set: time for every generator process to hear it.
const startLead = 200 * time.Millisecond

// loadIt connects the testers, measures the controller with them idle,
// has them send for o.Duration and waits for every session to end.
func (ch *child) loadIt(ctx context.Context, o ControllerOptions, tok credential.Token, r *ControllerResult, progress io.Writer) error {
	addr, err := waitEvent(ch.dir, "listening", time.Minute, ch.alive)
	if err != nil {
		return err
	}
	if _, err := waitEvent(ch.dir, "batch-start", time.Minute, ch.alive); err != nil {
		return err
	}
	base := ch.sample()
	r.BaseRSSMB = mb(base)
	if o.Attach != nil {
		detach, err := o.Attach(ctx, ch.log)
		if err != nil {
			return err
		}
		defer detach()
	}
	g, procs, err := newGenerator(o, genPlan{Addr: addr, Token: tok, Total: o.Testers,
		Each: o.Rate / float64(o.Testers), D: o.Duration}, progress)
	if err != nil {
		return err
	}
	defer g.close()
	r.GeneratorProcesses = procs
	fmt.Fprintf(progress, "controller pid %d on %s (RSS %.1f MB); connecting %d testers from %d source addresses in %d generator process(es) ...\n",
		ch.cmd.Process.Pid, addr, r.BaseRSSMB, o.Testers, r.Sources, procs)
	stopProgress := ch.progress(g, progress)
	defer stopProgress()
	t0 := time.Now()
	if err := g.connect(ctx); err != nil {
		return err
	}
	r.ConnectS = round(time.Since(t0).Seconds(), 2)
	time.Sleep(settle)
	idle := ch.sample()
	r.BytesPerTester = round((float64(idle)-float64(base))/float64(o.Testers), 0)
	fmt.Fprintf(progress, "%d testers connected in %.1f s; controller RSS %.1f MB (%.0f bytes per tester); sending %.0f samples/s for %v ...\n",
		o.Testers, r.ConnectS, mb(idle), r.BytesPerTester, o.Rate, o.Duration)
	start := time.Now().Add(startLead)
	stopMarks := ch.markRSS(start, o.Duration)
	cpuStart := make(chan time.Duration, 1)
	time.AfterFunc(time.Until(start), func() { cpuStart <- treeOf(ch.cmd.Process.Pid).CPU })
	res := g.send(start)
	stopMarks()
	ch.mu.Lock()
	ch.cpuEnd = treeOf(ch.cmd.Process.Pid).CPU
	r.SendCPUS = round((ch.cpuEnd - <-cpuStart).Seconds(), 3)
	ch.mu.Unlock()
	r.DrainS = round(time.Since(start.Add(o.Duration)).Seconds(), 2)
	r.Sent, r.Acked = g.totals()
	r.FailedSessions, r.FirstError = res.Failed, res.FirstError
	r.GeneratorCPUS = round(g.cpu().Seconds(), 2)
	fmt.Fprintf(progress, "sessions over (%.2f s after the last sample); the controller writes the run directory ...\n", r.DrainS)
	return nil
}

// newGenerator runs the plan's slots in this process when o allows this
// many per process, and else in child processes of o.Exe (`diperf bench
// controller-gen`) of at most o.TestersPerProcess slots each; it returns
// how many processes.
func newGenerator(o ControllerOptions, p genPlan, logw io.Writer) (generator, int, error) {
	if o.TestersPerProcess <= 0 || p.Total <= o.TestersPerProcess {
		p.Count = p.Total
		return newLocalGen(p), 1, nil
	}
	plans := splitPlan(p, o.TestersPerProcess)
	for i := range plans {
		plans[i].Connectors = max(1, connectors/len(plans))
	}
	g, err := startProcGen(plans, func(int) *exec.Cmd { return exec.Command(o.Exe, "bench", "controller-gen") }, logw)
	return g, len(plans), err
}

// connectAll connects tester slots first..first+len(slots)-1 of total into
// slots, parallel at a time, and returns them.
func connectAll(ctx context.Context, parallel int, addr string, slots []atomic.Pointer[loadTester], first, total int, tok credential.Token, counts *genCounts) ([]*loadTester, error) {
	n := len(slots)
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(parallel, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				t, err := dialTester(ctx, addr, first+i, total, tok, counts)
				if err != nil {
					once.Do(func() { firstErr = err })
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
		if firstErr != nil && testers[i] != nil {
			testers[i].conn.Close()
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return testers, nil
}

// heartbeats says, for every tester connected so far that sent nothing
// for half its heartbeat period (checked every second), that it is alive,
// as a tester's heartbeat loop does from its handshake on, until stop is
// called.
func heartbeats(slots []atomic.Pointer[loadTester]) (stop func()) {
	return every(time.Second, func() {
		for i := range slots {
			if t := slots[i].Load(); t != nil && time.Since(t.conn.LastWrite()) >= time.Duration(t.desc.HeartbeatNs)/2 {
				_ = t.conn.Write(protocol.TypeHeartbeat, nil)
			}
		}
	})
}

// sendAll has every tester send each samples/s from start for d and
// returns, when the last session ended, the first error.
func sendAll(testers []*loadTester, start time.Time, d time.Duration, each float64) string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	first := ""
	for _, t := range testers {
		wg.Go(func() {
			if err := t.run(start, d, each); err != nil {
				t.counts.failed.Add(1)
				mu.Lock()
				if first == "" {
					first = err.Error()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

// progress prints, every second, what the generator sent and the
// controller acknowledged in that second, and the controller's memory
// and CPU (its whole process tree).
func (ch *child) progress(g generator, w io.Writer) (stop func()) {
	var sent, acked uint64
	lastCPU := treeOf(ch.cmd.Process.Pid).CPU
	return every(time.Second, func() {
		u := ch.sampleTree()
		s, a := g.totals()
		fmt.Fprintf(w, "sent %9d/s  received %9d/s  controller RSS %7.1f MB  CPU %3.0f%%  processes %d\n",
			s-sent, a-acked, mb(u.RSS), 100*(u.CPU-lastCPU).Seconds(), u.Procs)
		sent, acked, lastCPU = s, a, u.CPU
	})
}
