package controller

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/tester"
	"github.com/diperf/diperf/internal/transport"
)

// inproc is a testbed whose testers are goroutines of this process on an
// in-memory network (TCP when net is nil), so that the race detector sees controller and tester
// together. It records what the controller asked of it.
type inproc struct {
	net   *transport.Memory
	ready testbed.Ready
	// start, when set, runs instead of a real tester (e.g. a rogue one).
	start func(ctx context.Context, s testbed.Spec) error

	mu       sync.Mutex
	specs    []testbed.Spec
	handles  []*inprocHandle
	prepared int
	cleaned  int
}

func newInproc(net *transport.Memory) *inproc {
	return &inproc{net: net, ready: testbed.Ready{Hosts: []string{"inproc"}}}
}

func (b *inproc) Prepare(_ context.Context, _ testbed.Plan) (testbed.Ready, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prepared++
	return b.ready, nil
}

func (b *inproc) Start(_ context.Context, s testbed.Spec) (testbed.Handle, error) {
	ctx, cancel := context.WithCancel(context.Background())
	h := &inprocHandle{cancel: cancel, done: make(chan struct{})}
	run := b.start
	if run == nil {
		run = func(ctx context.Context, s testbed.Spec) error {
			o := tester.Options{Controller: s.Controller, Slot: s.Slot, Token: specToken(s)}
			if b.net != nil {
				o.Transport = b.net
			}
			return tester.Run(ctx, o)
		}
	}
	go func() {
		h.err = run(ctx, s)
		close(h.done)
	}()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.specs = append(b.specs, s)
	b.handles = append(b.handles, h)
	return h, nil
}

// Cleanup waits for the testers until ctx is done, then cancels them.
func (b *inproc) Cleanup(ctx context.Context) error {
	b.mu.Lock()
	b.cleaned++
	hs := b.handles
	b.mu.Unlock()
	for _, h := range hs {
		select {
		case <-h.done:
		case <-ctx.Done():
			h.cancel()
		}
	}
	return nil
}

type inprocHandle struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func (h *inprocHandle) Host() string { return "inproc" }
func (h *inprocHandle) PID() int     { return os.Getpid() }
func (h *inprocHandle) Wait() error  { <-h.done; return h.err }
func (h *inprocHandle) Kill() error  { h.cancel(); return nil }

// inprocOptions runs exp on tb over tb's in-memory network.
func inprocOptions(exp *experiment.Experiment, dir string, tb *inproc) Options {
	return Options{Experiment: exp, Dir: dir, Testbed: tb, Transport: tb.net, Listen: "controller:0"}
}

// testExperiment is a short run of `sleep 0.02` clients that syncs over
// TCP, so that controller, testers and time server all meet on the
// in-memory network.
func testExperiment(t *testing.T, testers int, duration time.Duration) *experiment.Experiment {
	t.Helper()
	e := experiment.Default()
	e.Name = "inproc"
	e.Client.Exec = []string{"sleep", "0.02"}
	e.Client.Timeout = experiment.Duration(5 * time.Second)
	e.Schedule.Testers = testers
	e.Schedule.TesterStartInterval = experiment.Duration(100 * time.Millisecond)
	e.Schedule.TesterDuration = experiment.Duration(duration)
	e.Schedule.ClientInterval = 0
	e.Sync.Interval = experiment.Duration(300 * time.Millisecond)
	e.Sync.Transport = experiment.SyncTCP
	if p := e.Validate(); len(p) > 0 {
		t.Fatal(p)
	}
	return &e
}
