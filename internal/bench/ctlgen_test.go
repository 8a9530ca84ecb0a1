package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeGenEnv makes the test binary a generator child (TestMain) whose
// sessions are fakeGen: the real pipes and barrier, no controller.
const fakeGenEnv = "DIPERF_TEST_FAKE_GENERATOR"

func TestMain(m *testing.M) {
	if os.Getenv(fakeGenEnv) == "1" {
		err := serveGen(context.Background(), os.Stdin, os.Stdout, func(p genPlan) generator { return &fakeGen{plan: p} })
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeGen stands for a share of tester sessions: it "connects" in
// First/10 × 100 ms (First 99 fails to), says on stderr the start time it
// was given, sends 100 samples per slot, all acknowledged, and the share
// starting at slot 10 has one session fail.
type fakeGen struct {
	plan genPlan
	sent atomic.Uint64 // acked = sent
}

func (f *fakeGen) connect(context.Context) error {
	if f.plan.First == 99 {
		return errors.New("tester 99: connection refused")
	}
	time.Sleep(time.Duration(f.plan.First/10) * 100 * time.Millisecond)
	return nil
}

func (f *fakeGen) totals() (uint64, uint64) { return f.sent.Load(), f.sent.Load() }

func (f *fakeGen) send(start time.Time) genResult {
	fmt.Fprintf(os.Stderr, "start %d\n", start.UnixNano())
	time.Sleep(time.Until(start))
	// Some CPU: 20 ms of this process's own CPU time, not of the wall
	// clock (on a busy machine 20 ms of wall time may give it less).
	for from := selfCPU(syscall.RUSAGE_SELF); selfCPU(syscall.RUSAGE_SELF)-from < 20*time.Millisecond; {
	}
	f.sent.Store(uint64(100 * f.plan.Count))
	if f.plan.First == 10 {
		return genResult{Failed: 1, FirstError: "tester 12: broken pipe"}
	}
	return genResult{}
}

func (f *fakeGen) cpu() time.Duration { return 0 }
func (f *fakeGen) close()             {}

func fakeGenCmd(t *testing.T) func(int) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func(int) *exec.Cmd {
		c := exec.Command(exe)
		c.Env = append(os.Environ(), fakeGenEnv+"=1")
		return c
	}
}

// TestProcGenBarrierAndTotals runs three generator child processes: connect
// returns only once the slowest has connected, every child starts from
// the one start time (they say it on stderr), and the counts, failures and CPU add up.
func TestProcGenBarrierAndTotals(t *testing.T) {
	plans := splitPlan(genPlan{Total: 25}, 10)
	if len(plans) != 3 || plans[2].First != 20 || plans[2].Count != 5 {
		t.Fatalf("split 25 by 10: %+v", plans)
	}
	var log strings.Builder
	g, err := startProcGen(plans, fakeGenCmd(t), &log)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	t0 := time.Now()
	if err := g.connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < 200*time.Millisecond {
		t.Errorf("connect returned after %v, before the slowest child (200 ms)", d)
	}
	if s, _ := g.totals(); s != 0 {
		t.Errorf("sent %d before the start", s)
	}
	start := time.Now().Add(startLead)
	res := g.send(start)
	sent, acked := g.totals()
	if sent != 2500 || acked != 2500 {
		t.Errorf("sent %d, acked %d; want 2,500 each (100 × 25 slots)", sent, acked)
	}
	if res.Failed != 1 || res.FirstError != "tester 12: broken pipe" {
		t.Errorf("failed %d, first error %q; want 1, the second child's", res.Failed, res.FirstError)
	}
	if g.cpu() < 3*20*time.Millisecond {
		t.Errorf("generator CPU %v: the children's 3 × 20 ms not counted", g.cpu())
	}
	want := strings.Repeat(fmt.Sprintf("start %d\n", start.UnixNano()), 3)
	if log.String() != want {
		t.Errorf("the children were told to start at\n%swant one time for all:\n%s", log.String(), want)
	}
}

// TestProcGenConnectFails ends the connect phase with the failing child's
// error, naming its share of the slots.
func TestProcGenConnectFails(t *testing.T) {
	plans := []genPlan{{First: 0, Count: 5, Total: 104}, {First: 99, Count: 5, Total: 104}}
	g, err := startProcGen(plans, fakeGenCmd(t), &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	err = g.connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "generator process 1 (testers 99-103): tester 99: connection refused") {
		t.Fatalf("connect: %v", err)
	}
}
