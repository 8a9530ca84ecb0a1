package controller

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// fakeTester is a tester on fake time that the test drives: it joins,
// reads (and counts) what the controller sends in the background, and
// sends what it is told.
type fakeTester struct {
	conn *protocol.Conn
	wmu  sync.Mutex
	seq  uint64

	mu    sync.Mutex
	heard map[protocol.Type]int
	acked uint64        // the highest Seq acknowledged
	stop  chan struct{} // closed when a Stop came
	ended chan struct{} // closed when the controller hung up
}

func joinFake(ctx context.Context, tb *inproc, s testbed.Spec) (*fakeTester, error) {
	conn, err := rogueJoin(ctx, tb.net, s, protocol.Version)
	if err != nil {
		return nil, err
	}
	f := &fakeTester{conn: conn, heard: map[protocol.Type]int{}, stop: make(chan struct{}), ended: make(chan struct{})}
	go f.read()
	return f, nil
}

func (f *fakeTester) read() {
	defer close(f.ended)
	for {
		typ, p, err := f.conn.Read()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.heard[typ]++
		if seq, err := protocol.ParseAck(p); typ == protocol.TypeAck && err == nil {
			f.acked = max(f.acked, seq)
		}
		if typ == protocol.TypeStop && f.heard[typ] == 1 {
			close(f.stop)
		}
		f.mu.Unlock()
	}
}

func (f *fakeTester) count(typ protocol.Type) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.heard[typ]
}

func (f *fakeTester) send(t *testing.T, typ protocol.Type, v any) {
	t.Helper()
	f.wmu.Lock()
	defer f.wmu.Unlock()
	var err error
	switch m := v.(type) {
	case nil:
		err = f.conn.Write(typ, nil)
	case int: // that many samples
		b := &protocol.Batch{}
		for range m {
			f.seq++
			now := time.Now().UnixNano()
			b.Samples = append(b.Samples, sample.Sample{Seq: f.seq, Start: now - 1e6, End: now})
		}
		b.Produced = f.seq
		err = f.conn.Write(typ, protocol.AppendBatch(nil, b))
	default:
		err = f.conn.WriteJSON(typ, v)
	}
	if err != nil {
		t.Errorf("fake tester: sending %s: %v", typ, err)
	}
}

// done sends Done with what it produced, and waits for the hang-up.
func (f *fakeTester) done(t *testing.T, reason string) {
	f.send(t, protocol.TypeDone, protocol.Done{LocalNs: time.Now().UnixNano(), Produced: f.seq, Reason: reason})
	<-f.ended
	f.conn.Close()
}

// conductOnly is Run up to the testbed's cleanup, without finish: on fake
// time, samples.parquet must not be read (parquet-go's finalizers receive
// on channels made in the bubble). It returns the controller, whose
// slots hold the testers' records, and the abort error.
func conductOnly(t *testing.T, o Options) (*controller, error) {
	t.Helper()
	return conductOnlyWith(t, o, nil)
}

// conductOnlyWith is conductOnly that hands the controller to made (when
// set) before the run starts.
func conductOnlyWith(t *testing.T, o Options, made func(*controller)) (*controller, error) {
	t.Helper()
	c, err := newController(o)
	if err != nil {
		t.Fatal(err)
	}
	if made != nil {
		made(c)
	}
	ln, err := c.o.Transport.Listen(c.o.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := c.makeDir(); err != nil {
		t.Fatal(err)
	}
	if err := c.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.advertise(ln.Addr()); err != nil {
		t.Fatal(err)
	}
	defer c.closeFiles()
	if err := c.openFiles(); err != nil {
		t.Fatal(err)
	}
	if err := c.conduct(context.Background(), ln); err != nil {
		t.Fatal(err)
	}
	c.retrieve()
	c.cleanup()
	return c, c.withAbort(nil)
}

// eventAt returns the first event named name of slot, or fails.
func eventAt(t *testing.T, dir, name string, slot int) rundir.Event {
	t.Helper()
	for _, e := range events(t, dir) {
		if e.Event == name && e.Slot != nil && *e.Slot == slot {
			return e
		}
	}
	t.Fatalf("no %q event for tester %d", name, slot)
	return rundir.Event{}
}

// TestSilentTesterIsLostThenHeardAgain has a tester fall silent after
// 3 s: it is marked lost ("no heartbeat") at most 3 s after its last
// frame, its connection kept; when it speaks again 10 s later its late
// samples are taken (tester-back), so nothing it sent is lost, and it
// stays failed.
func TestSilentTesterIsLostThenHeardAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		var last time.Time
		var beats int
		tb.start = func(ctx context.Context, s testbed.Spec) error {
			f, err := joinFake(ctx, tb, s)
			if err != nil {
				return err
			}
			f.send(t, protocol.TypeStarted, protocol.Started{LocalNs: time.Now().UnixNano()})
			for range 3 {
				f.send(t, protocol.TypeSamples, 10)
				time.Sleep(time.Second)
			}
			f.send(t, protocol.TypeHeartbeat, nil)
			last = time.Now()
			time.Sleep(10 * time.Second)                                        // silent: cut off
			beats = f.count(protocol.TypeHeartbeat) + f.count(protocol.TypeAck) // any frame is a sign of life
			f.send(t, protocol.TypeSamples, 10)
			f.done(t, "cut off from the controller")
			return nil
		}
		c, err := conductOnly(t, inprocOptions(testExperiment(t, 1, 30*time.Second), dir, tb))
		if err != nil {
			t.Fatal(err)
		}
		lost := eventAt(t, dir, "tester-lost", 0)
		if after := time.Unix(0, lost.TimeNs).Sub(last); after > LostAfter || after < LostAfter-time.Second {
			t.Errorf("marked lost %v after its last frame, want just under %v", after, LostAfter)
		}
		if lost.Detail != "no heartbeat for 3s: cut off or hung" {
			t.Errorf("lost because %q", lost.Detail)
		}
		if late := eventAt(t, dir, "late-samples", 0); late.Detail != "10 samples came after it was lost" {
			t.Errorf("late-samples says %q, want 10 late samples", late.Detail)
		}
		if beats < 12 {
			t.Errorf("the tester heard %d heartbeats and acks in 13 s, want a frame a second, lost or not", beats)
		}
		r := c.slots[0].rec
		if r.Received != 40 || r.Sent != 40 || !r.Failed || r.FailureReason != lost.Detail {
			t.Errorf("tester %+v: want all 40 samples, the tester failed as lost", r)
		}
		if r.StopNs != lost.TimeNs {
			t.Errorf("stopped at %d, want when it was lost (%d)", r.StopNs, lost.TimeNs)
		}
	})
}

// TestPolicyAbortStopsTheRun has the first of two testers drop its
// connection under failure_policy abort: the other is told to stop, the
// run directory is still written, and Run's error names the tester.
func TestPolicyAbortStopsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		stopped := make(chan bool, 1)
		tb.start = func(ctx context.Context, s testbed.Spec) error {
			f, err := joinFake(ctx, tb, s)
			if err != nil {
				return err
			}
			f.send(t, protocol.TypeStarted, protocol.Started{LocalNs: time.Now().UnixNano()})
			f.send(t, protocol.TypeSamples, 5)
			if s.Slot == 0 {
				time.Sleep(2 * time.Second)
				f.conn.Close() // dies
				return nil
			}
			select {
			case <-f.stop:
				stopped <- true
			case <-time.After(time.Minute):
				stopped <- false
			}
			f.done(t, "stopped")
			return nil
		}
		exp := testExperiment(t, 2, time.Minute)
		exp.FailurePolicy = experiment.PolicyAbort
		start := time.Now()
		c, err := conductOnly(t, inprocOptions(exp, dir, tb))
		const want = "run aborted (failure_policy: abort): tester 0 (rogue:1) failed: lost connection"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("run: %v, want %q", err, want)
		}
		if !<-stopped || time.Since(start) > 10*time.Second {
			t.Errorf("the other tester was not told to stop at once (the run took %v)", time.Since(start))
		}
		if got := c.slots[0].rec.Received + c.slots[1].rec.Received; got != 10 {
			t.Errorf("%d samples received, want all 10", got)
		}
		if e := eventAt(t, dir, "aborted", 0); !strings.HasPrefix(e.Detail, want) {
			t.Errorf("aborted event %q", e.Detail)
		}
	})
}

// TestPolicyThresholds checks when each failure policy stops the run.
func TestPolicyThresholds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		policy          string
		tolerate        experiment.Percent
		failed, planned int
		abort           bool
	}{
		{experiment.PolicyContinue, 0, 10, 10, false},
		{experiment.PolicyAbort, 0, 0, 10, false},
		{experiment.PolicyAbort, 0, 1, 10, true},
		{experiment.PolicyTolerate, 0, 1, 10, true},
		{experiment.PolicyTolerate, 20, 2, 10, false}, // 20% of 10 is 2: tolerated
		{experiment.PolicyTolerate, 20, 3, 10, true},
		{experiment.PolicyTolerate, 25, 1, 3, true}, // 33% > 25%
		{experiment.PolicyTolerate, 50, 1, 3, false},
		{experiment.PolicyTolerate, 100, 3, 3, false},
	} {
		if got := policyAborts(c.policy, c.tolerate, c.failed, c.planned); got != c.abort {
			t.Errorf("%s %v%%, %d of %d failed: abort %v, want %v", c.policy, float64(c.tolerate), c.failed, c.planned, got, c.abort)
		}
	}
}

// TestPolicyTolerateGoesOnThenAborts runs 4 testers under tolerate 25%:
// the first failure is tolerated, the second stops the run.
func TestPolicyTolerateGoesOnThenAborts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		tb.start = func(ctx context.Context, s testbed.Spec) error {
			f, err := joinFake(ctx, tb, s)
			if err != nil {
				return err
			}
			f.send(t, protocol.TypeStarted, protocol.Started{LocalNs: time.Now().UnixNano()})
			f.send(t, protocol.TypeSamples, 5)
			dies := time.After(time.Hour)
			if s.Slot < 2 { // tester 0 dies at 5 s, tester 1 at 15 s
				dies = time.After(time.Duration(5+10*s.Slot) * time.Second)
			}
			for {
				select {
				case <-dies:
					f.conn.Close()
					return nil
				case <-f.stop:
					f.done(t, "stopped")
					return nil
				case <-ctx.Done():
					f.conn.Close()
					return nil
				case <-time.After(time.Second):
					f.send(t, protocol.TypeHeartbeat, nil)
				}
			}
		}
		exp := testExperiment(t, 4, time.Minute)
		exp.FailurePolicy, exp.TolerateLost = experiment.PolicyTolerate, 25
		start := time.Now()
		_, err := conductOnly(t, inprocOptions(exp, dir, tb))
		const want = "run aborted (failure_policy: tolerate): 2 of 4 testers failed, more than tolerate_lost 25%; the last: tester 1"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("run: %v, want %q", err, want)
		}
		took := time.Since(start)
		if took < 15*time.Second || took > 25*time.Second {
			t.Errorf("the run took %v: want it to go on past the first failure and stop at the second (15 s)", took)
		}
	})
}
