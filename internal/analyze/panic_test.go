package analyze

import (
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/sample"
)

// TestParallelPanicIsAnError injects a panic into a worker of the parallel
// analysis: Add must not block on the dead worker, and Result must return
// an error (exit code 2) that says what was being done, instead of the
// process dying from a goroutine nobody can recover.
func TestParallelPanicIsAnError(t *testing.T) {
	testHookAdd = func() { panic("injected") }
	defer func() { testHookAdd = nil }()
	p, err := NewParallel(Config{Name: "t", Quantum: time.Second, Testers: []Tester{tester(0, 0, 1), tester(1, 0, 1)}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 { // more batches than a worker's queue holds
		if err := p.Add([]sample.Call{call(0, 0, 0.5, sample.OK), call(1, 0, 0.5, sample.OK)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = p.Result()
	if err == nil || !strings.Contains(err.Error(), "analyzing the calls: internal error") || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("Result: %v; want the injected panic as an error", err)
	}
	if errs.Code(err) != errs.CodeUsage {
		t.Errorf("exit code %d, want %d", errs.Code(err), errs.CodeUsage)
	}
}
