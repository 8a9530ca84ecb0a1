package controller

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// steerLiar is a tester that says it is steerable, takes the
// controller's load steps (counting them) and says what its test makes
// it say in Done.
type steerLiar struct {
	*liar
	loads atomic.Uint64                     // TypeLoad frames received
	first atomic.Pointer[protocol.LoadStep] // the first of them
	last  atomic.Pointer[protocol.LoadStep] // the last of them
}

// joinSteerLiar joins like joinLiar, saying hello as a steerable tester;
// with steerable false it expects to be refused, and returns nil.
func joinSteerLiar(ctx context.Context, t *testing.T, s testbed.Spec, steerable bool) *steerLiar {
	nc, err := transport.TCP{}.Dial(ctx, s.Controller)
	if err != nil {
		t.Error(err)
		return nil
	}
	l := &steerLiar{liar: &liar{t: t, conn: protocol.NewConn(nc), ended: make(chan struct{})}}
	hello := protocol.Hello{Proto: protocol.Version, Slot: s.Slot, ID: "liar:1", Host: "liar", PID: 1, Nonce: protocol.NewNonce(), Steerable: steerable}
	l.desc, err = handshakeAs(l.conn, s, hello)
	if !steerable {
		if err == nil || !strings.Contains(err.Error(), "cannot take load steps") {
			t.Errorf("a tester that cannot take load steps joined a search: %v", err)
		}
		nc.Close()
		return nil
	}
	if err != nil || !l.desc.Steered {
		t.Errorf("a steerable tester: %v, steered %v", err, l.desc.Steered)
		nc.Close()
		return nil
	}
	go l.read()
	now := time.Now().UnixNano()
	l.send(protocol.TypeSyncRecord, protocol.SyncRecord{LocalNs: now, RTTNs: 50_000, BoundNs: 25_000})
	l.send(protocol.TypeStarted, protocol.Started{LocalNs: now})
	return l
}

// read takes what the controller says until it hangs up.
func (l *steerLiar) read() {
	defer close(l.ended)
	for {
		typ, p, err := l.conn.Read()
		if err != nil {
			return
		}
		switch seq, err := protocol.ParseAck(p); {
		case typ == protocol.TypeAck && err == nil:
			l.acked.Store(max(l.acked.Load(), seq))
		case typ == protocol.TypeLoad:
			if ls, err := protocol.DecodeLoadStep(p, 1<<20); err == nil {
				l.first.CompareAndSwap(nil, &ls)
				l.last.Store(&ls)
			}
			l.loads.Add(1)
		}
	}
}

// doneAfterSteps waits for a load step (15 s at most, heartbeating), sends
// a few honest samples and then the Done that lie makes of the steps it
// got.
func (l *steerLiar) doneAfterSteps(slot int, lie func(got uint64) protocol.Done) {
	l.waitSteps(slot, 1, true)
	l.batch(l.honest(5))
	l.waitAcked()
	d := lie(l.loads.Load())
	d.LocalNs, d.Produced = time.Now().UnixNano(), l.seq
	l.done(d)
}

// waitSteps waits for n load steps in all, 15 s at most, heartbeating or
// silent.
func (l *steerLiar) waitSteps(slot int, n uint64, beat bool) {
	for end := time.Now().Add(15 * time.Second); l.loads.Load() < n && time.Now().Before(end); {
		if beat {
			_ = l.conn.Write(protocol.TypeHeartbeat, nil) // not lost meanwhile
		}
		time.Sleep(200 * time.Millisecond)
	}
	if l.loads.Load() < n {
		l.t.Errorf("tester %d: %d load steps came, want %d", slot, l.loads.Load(), n)
	}
}

// TestSearchTesterLost: a tester lost in a search (silent, its connection
// open) is sent no load and its share goes to the other, at once.
func TestSearchTesterLost(t *testing.T) {
	t.Parallel()
	exp := searchExperiment(t, 2, 4, 30*time.Second, "http://127.0.0.1:1/", true)
	tb := newInproc(nil)
	liars := make([]*steerLiar, 2)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		l := joinSteerLiar(ctx, t, s, true)
		if l == nil {
			return nil
		}
		liars[s.Slot] = l
		l.waitSteps(s.Slot, 1, true)
		l.waitSteps(s.Slot, 2, s.Slot == 1) // tester 0 falls silent until it is sent its second step
		l.batch(l.honest(5))
		l.done(protocol.Done{LocalNs: time.Now().UnixNano(), Produced: l.seq, LoadSteps: l.loads.Load()})
		return nil
	}
	o := Options{Experiment: exp, Dir: filepath.Join(t.TempDir(), "run"), Testbed: tb,
		Search: &search.Config{SLOs: mustSLOs(t, "p99_ms < 100"), Start: 10, MaxRate: 100}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][2]float64{{5, 0}, {5, 10}} {
		l := liars[i]
		if l == nil || l.first.Load() == nil || l.first.Load().Rate != want[0] || l.last.Load().Rate != want[1] {
			t.Errorf("tester %d: want a first step of %g calls/s, a last of %g", i, want[0], want[1])
		}
	}
}

// TestSearchRefusesAnUnsteerableTester: a tester whose hello did not say
// it takes load steps is refused with the reason, not run unsteered, and
// the search, which never began, says so in search.json.
func TestSearchRefusesAnUnsteerableTester(t *testing.T) {
	t.Parallel()
	exp := searchExperiment(t, 1, 4, 10*time.Second, "http://127.0.0.1:1/", true)
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(nil)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		joinSteerLiar(ctx, t, s, false)
		return nil
	}
	o := Options{Experiment: exp, Dir: dir, Testbed: tb, Search: &search.Config{SLOs: mustSLOs(t, "p99_ms < 100"), MaxRate: 100}}
	out, err := Run(context.Background(), o)
	if err == nil || out == nil || out.Search == nil || out.Search.Verdict != search.VerdictNoData {
		t.Fatalf("run: %v, outcome %+v: want no samples and a search of no data", err, out)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil || len(recs) != 1 || !recs[0].Failed || !strings.Contains(recs[0].FailureReason, "cannot take load steps") {
		t.Fatalf("testers.csv: %v %+v: want the tester failed, refused for its steps", err, recs)
	}
	if r, err := rundir.ReadSearch(dir); err != nil || r == nil || !strings.Contains(r.Why, "never began") {
		t.Errorf("search.json: %v %+v", err, r)
	}
}

// TestSearchDoneLoadStepsLie: testers that claim in Done more load steps
// than they were sent (taken, refused, or both past 2⁶⁴) have the claim
// refused and counted in testers.csv, and none of it is recorded as taken.
func TestSearchDoneLoadStepsLie(t *testing.T) {
	t.Parallel()
	lies := []func(got uint64) protocol.Done{
		func(got uint64) protocol.Done { return protocol.Done{LoadSteps: got + 1} },
		func(got uint64) protocol.Done { return protocol.Done{LoadSteps: got, LoadRefused: math.MaxUint64} },
		func(got uint64) protocol.Done { return protocol.Done{LoadSteps: math.MaxUint64, LoadRefused: 2} },
	}
	exp := searchExperiment(t, len(lies), 4, 20*time.Second, "http://127.0.0.1:1/", true)
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(nil)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		if l := joinSteerLiar(ctx, t, s, true); l != nil {
			l.doneAfterSteps(s.Slot, lies[s.Slot])
		}
		return nil
	}
	o := Options{Experiment: exp, Dir: dir, Testbed: tb, Search: &search.Config{SLOs: mustSLOs(t, "p99_ms < 100"), MaxRate: 100}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil || len(recs) != len(lies) {
		t.Fatalf("testers.csv: %v (%d testers)", err, len(recs))
	}
	for _, r := range recs {
		if r.Refused.Messages != 1 || !strings.Contains(r.Refused.Reason, "load steps") {
			t.Errorf("tester %d: %d messages refused (%q): want its Done's load steps refused", r.Slot, r.Refused.Messages, r.Refused.Reason)
		}
	}
	if taken := eventsNamed(t, dir, "load-steps"); len(taken) != 0 {
		t.Errorf("load steps recorded as taken: %v", taken)
	}
}

// TestSearchDoneRefusedWhyClipped: a tester whose Done's counts are
// possible (one step refused of those sent) but whose reason for it is
// 64 KiB has its counts taken and its reason cut in events.jsonl.
func TestSearchDoneRefusedWhyClipped(t *testing.T) {
	t.Parallel()
	exp := searchExperiment(t, 1, 4, 20*time.Second, "http://127.0.0.1:1/", true)
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(nil)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		if l := joinSteerLiar(ctx, t, s, true); l != nil {
			l.doneAfterSteps(s.Slot, func(got uint64) protocol.Done {
				return protocol.Done{LoadSteps: got - 1, LoadRefused: 1, LoadRefusedWhy: strings.Repeat("x", 64<<10)}
			})
		}
		return nil
	}
	o := Options{Experiment: exp, Dir: dir, Testbed: tb, Search: &search.Config{SLOs: mustSLOs(t, "p99_ms < 100"), MaxRate: 100}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got := eventsNamed(t, dir, "load-steps")[0]
	if len(got) != 1 || !strings.HasPrefix(got[0], "took 0 of the 1 load steps sent, refused 1: xxx") || len(got[0]) > 300 {
		t.Errorf("load-steps event %.300q: want the counts and the reason cut", got)
	}
}

// TestSearchInterrupted: a search whose run is interrupted keeps what it
// learned, as a budget-out that says so, in search.json.
func TestSearchInterrupted(t *testing.T) {
	t.Parallel()
	exp := searchExperiment(t, 2, 4, time.Minute, serveTarget(t, 8, 200*time.Millisecond), false)
	dir := filepath.Join(t.TempDir(), "run")
	o := inprocOptions(exp, dir, newInproc(transport.NewMemory()))
	o.Search = &search.Config{SLOs: mustSLOs(t, "p90_ms < 300"), MaxRate: 8, MinWarmup: time.Second, StepLimit: 5 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	out, err := Run(ctx, o)
	if err != nil || out.Search == nil {
		t.Fatalf("interrupted search: %v, %+v", err, out)
	}
	r, err := rundir.ReadSearch(dir)
	if err != nil || r == nil || r.Verdict != search.VerdictBudgetOut || !strings.HasPrefix(r.Why, "the run ended before the search did: ") ||
		r.Why != out.Search.Why {
		t.Fatalf("search.json: %v, %+v", err, r)
	}
	t.Log(r.Why)
}
