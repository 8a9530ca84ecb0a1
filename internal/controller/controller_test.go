package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

func TestRunInProcess(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(transport.NewMemory())
	tb.ready = testbed.Ready{Hosts: []string{"h1", "h2"}, PerHost: 1}
	out, err := Run(context.Background(), inprocOptions(testExperiment(t, 3, time.Second), dir, tb))
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
	// The testbed was prepared once, asked for the hosts it offered in
	// turn, and cleaned up once.
	if tb.prepared != 1 || tb.cleaned != 1 {
		t.Errorf("testbed prepared %d and cleaned up %d times, want 1 and 1", tb.prepared, tb.cleaned)
	}
	for i, want := range []string{"h1", "h2", "h1"} {
		if got := tb.specs[i].Host; got != want {
			t.Errorf("tester %d started on %q, want %q", i, got, want)
		}
	}
}

func TestRunInterruptedStillWritesResults(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := Run(ctx, inprocOptions(testExperiment(t, 2, time.Minute), dir, newInproc(transport.NewMemory())))
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
	_, err := Run(context.Background(), inprocOptions(testExperiment(t, 1, time.Second), dir, newInproc(transport.NewMemory())))
	if err == nil {
		t.Fatal("a run directory holding a run was reused")
	}
}

// TestTestbedFromTheExperiment checks that with no testbed given, the
// experiment's provider is used: a provider this build does not run is a
// usage error that creates no run directory.
func TestTestbedFromTheExperiment(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ provider, hosts, want string }{
		{"k8s", "", "must be one of local, ssh, slurm or join"},
		{"local", "far.example.org", `"far.example.org" is not this machine`},
	} {
		exp := testExperiment(t, 1, time.Second)
		exp.Testbed.Provider = tt.provider
		if tt.hosts != "" {
			exp.Testbed.Hosts = []string{tt.hosts}
		}
		dir := filepath.Join(t.TempDir(), "run")
		_, err := Run(context.Background(), Options{Experiment: exp, Dir: dir})
		if err == nil || !strings.Contains(err.Error(), tt.want) || errs.Code(err) != errs.CodeUsage {
			t.Errorf("%s: err = %v (exit code %d), want a usage error holding %q", tt.provider, err, errs.Code(err), tt.want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the run directory was created: %v", tt.provider, err)
		}
	}
}

// failingPrepare is a testbed that cannot be prepared.
type failingPrepare struct{ *inproc }

func (failingPrepare) Prepare(context.Context, testbed.Plan) (testbed.Ready, error) {
	return testbed.Ready{}, errors.New("deploy file client.py: no such file")
}

// TestPrepareFailureLeavesNoRun checks that a testbed that cannot be
// prepared is cleaned up and leaves no run behind (the same --out works
// again once fixed).
func TestPrepareFailureLeavesNoRun(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	tb := failingPrepare{newInproc(transport.NewMemory())}
	o := inprocOptions(testExperiment(t, 1, time.Second), dir, tb.inproc)
	o.Testbed = tb
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "client.py") {
		t.Fatalf("err = %v, want the testbed's", err)
	}
	if tb.cleaned != 1 || len(tb.specs) != 0 {
		t.Errorf("after a failed prepare: %d cleanups and %d testers started, want 1 and 0", tb.cleaned, len(tb.specs))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run directory was left behind: %v", err)
	}
}
