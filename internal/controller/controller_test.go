package controller

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/tester"
)

// inproc is a testbed whose testers are goroutines of this process, so that
// the race detector sees controller and tester together.
type inproc struct{}

type inprocHandle struct {
	cancel context.CancelFunc
	done   chan error
}

func (inproc) Start(_ context.Context, s testbed.Spec) (testbed.Handle, error) {
	ctx, cancel := context.WithCancel(context.Background())
	h := &inprocHandle{cancel: cancel, done: make(chan error, 1)}
	go func() {
		h.done <- tester.Run(ctx, tester.Options{Controller: s.Controller, Slot: s.Slot, Secret: s.Secret})
	}()
	return h, nil
}

func (h *inprocHandle) Host() string { return "inproc" }
func (h *inprocHandle) PID() int     { return os.Getpid() }
func (h *inprocHandle) Wait() error  { return <-h.done }
func (h *inprocHandle) Kill() error  { h.cancel(); return nil }

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
	if p := e.Validate(); len(p) > 0 {
		t.Fatal(p)
	}
	return &e
}

func TestRunInProcess(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	out, err := Run(context.Background(), Options{Experiment: testExperiment(t, 3, time.Second), Dir: dir, Testbed: inproc{}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Started != 3 || out.Failed != 0 || out.Samples < 3*20 {
		t.Fatalf("outcome %+v", out)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		// 1 s with a re-sync every 300 ms: the first sync and about 3 more.
		if len(r.Syncs) < 3 || r.Lost() != 0 || r.Received != r.Sent || r.StopNs <= r.StartNs {
			t.Errorf("tester %d: %d syncs, sent %d received %d, start %d stop %d",
				r.Slot, len(r.Syncs), r.Sent, r.Received, r.StartNs, r.StopNs)
		}
	}
	s, err := pipeline.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Samples.Total != int(out.Samples) || s.Samples.OK != s.Samples.Total {
		t.Errorf("summary %+v, want %d ok samples", s.Samples, out.Samples)
	}
}

func TestRunInterruptedStillWritesResults(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := Run(ctx, Options{Experiment: testExperiment(t, 2, time.Minute), Dir: dir, Testbed: inproc{}})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("interrupted run took %v to stop", el)
	}
	if out.Samples == 0 || out.Failed != 0 {
		t.Fatalf("outcome %+v: interrupted testers stop cleanly and keep their samples", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
}

func TestExistingRunDirIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.Experiment), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Experiment: testExperiment(t, 1, time.Second), Dir: dir, Testbed: inproc{}})
	if err == nil {
		t.Fatal("a run directory holding a run was reused")
	}
}
