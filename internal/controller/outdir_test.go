package controller

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/transport"
)

// TestOutDirProblemsAreUsageErrors checks that what is wrong with --out
// is exit code 2 with a hint, and that nothing is started or left behind.
func TestOutDirProblemsAreUsageErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	held := filepath.Join(tmp, "held")
	for _, err := range []error{os.WriteFile(file, nil, 0o644), os.Mkdir(held, 0o755),
		os.WriteFile(filepath.Join(held, rundir.Experiment), []byte("name: x\n"), 0o644)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, dir, msg, hint string
	}{
		{"not a directory", file, "exists and is not a directory", "--out a new path"},
		{"below a file", filepath.Join(file, "run"), "cannot create the run directory", "where you may create"},
		{"holds a run", held, "already holds a run", "choose another --out, or remove that directory"},
	}
	if st, err := os.Stat("/sys/kernel"); err == nil && st.IsDir() { // read-only, also for root
		tests = append(tests, struct{ name, dir, msg, hint string }{"parent not writable", "/sys/kernel/diperf-run", "cannot create", "where you may create"},
			struct{ name, dir, msg, hint string }{"not writable", "/sys/kernel", "cannot create", "where you may create"})
	}
	for _, tt := range tests {
		tb := newInproc(transport.NewMemory())
		_, err := Run(context.Background(), inprocOptions(testExperiment(t, 1, time.Second), tt.dir, tb))
		if err == nil || errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(errs.Hint(err), tt.hint) {
			t.Errorf("%s: %v (exit %d, hint %q), want exit 2 holding %q with a hint holding %q", tt.name, err, errs.Code(err), errs.Hint(err), tt.msg, tt.hint)
		}
		if tb.prepared != 0 || len(tb.specs) != 0 {
			t.Errorf("%s: the testbed was prepared (%d) or started testers (%d)", tt.name, tb.prepared, len(tb.specs))
		}
	}
	if b, _ := os.ReadFile(filepath.Join(held, rundir.Experiment)); string(b) != "name: x\n" {
		t.Errorf("the run already in %s was touched: %q", held, b)
	}
}

// TestListenFailureLeavesNoRunDir checks that a controller that cannot
// listen creates no run directory, so that a retry with the same --out
// works.
func TestListenFailureLeavesNoRunDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	o := Options{Experiment: testExperiment(t, 1, time.Second), Dir: dir, Testbed: newInproc(nil), Listen: "192.0.2.1:1"}
	_, err := Run(context.Background(), o)
	if err == nil || errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), "listen on 192.0.2.1:1") || errs.Hint(err) == "" {
		t.Fatalf("err = %v (exit %d, hint %q), want a usage error about listening", err, errs.Code(err), errs.Hint(err))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a controller that could not listen left a run directory: %v", err)
	}
	tb := newInproc(transport.NewMemory())
	if _, err := Run(context.Background(), inprocOptions(testExperiment(t, 1, 300*time.Millisecond), dir, tb)); err != nil {
		t.Fatalf("retry into the same --out: %v", err)
	}
}

// TestGivenSecret checks that Options.Secret is the secret testers are
// given (and prove), and that a short one is refused.
func TestGivenSecret(t *testing.T) {
	t.Parallel()
	secret := []byte("q8Lx+/0m1Jt3fC5yQ2n7R4s6U9w0zA8bD1eF3gH5iJ4=")
	tb := newInproc(transport.NewMemory())
	o := inprocOptions(testExperiment(t, 1, 300*time.Millisecond), filepath.Join(t.TempDir(), "run"), tb)
	o.Secret = secret
	out, err := Run(context.Background(), o)
	if err != nil || out.Started != 1 || out.Failed != 0 {
		t.Fatalf("run with a given secret: %+v, %v", out, err)
	}
	if got := specToken(tb.specs[0]).Secret; !bytes.Equal(got, secret) {
		t.Errorf("tester given secret %q, want %q", got, secret)
	}
	for _, weak := range []string{"short", "0123456789abcdef0123456789abcdef", "passwordpasswordpasswordpassword!"} {
		o.Secret, o.Dir = []byte(weak), filepath.Join(t.TempDir(), "run")
		if _, err := Run(context.Background(), o); err == nil || errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), "32 random bytes") {
			t.Errorf("secret %q: %v, want it refused as under 32 random bytes", weak, err)
		}
	}
}

// TestLaunchRateIsBounded checks that testers are launched every interval
// from the start, but never closer than minLaunchGap, even to catch up.
func TestLaunchRateIsBounded(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0)
	tests := []struct {
		name  string
		i     int
		every time.Duration
		last  time.Time
		want  time.Time
	}{
		{"first", 0, 0, time.Time{}, start},
		{"on the ramp", 3, time.Second, start.Add(2 * time.Second), start.Add(3 * time.Second)},
		{"all at once", 5, 0, start.Add(20 * time.Millisecond), start.Add(20*time.Millisecond + minLaunchGap)},
		{"catching up after a slow launch", 4, 10 * time.Millisecond, start.Add(time.Second), start.Add(time.Second + minLaunchGap)},
	}
	for _, tt := range tests {
		if got := launchAt(start, tt.i, tt.every, tt.last); !got.Equal(tt.want) {
			t.Errorf("%s: at %v, want %v", tt.name, got.Sub(start), tt.want.Sub(start))
		}
	}
	if minLaunchGap != 5*time.Millisecond {
		t.Errorf("minLaunchGap %v: 200 launches a second is what the docs say", minLaunchGap)
	}
}
