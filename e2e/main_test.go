// Package e2e runs the real diperf binary against real processes and real
// sockets: whole runs, failure cases, and the demo's known answers.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
)

var bin string // the diperf binary under test

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "diperf-e2e-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "diperf")
	build := exec.Command("go", "build", "-o", bin, "../cmd/diperf")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building diperf:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one diperf invocation did.
type result struct {
	code           int
	stdout, stderr string
}

// diperf runs the binary to completion (bounded by timeout).
func diperf(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	return diperfEnv(t, timeout, nil, args...)
}

// diperfEnv is diperf with env added to the environment.
func diperfEnv(t *testing.T, timeout time.Duration, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("diperf %v did not finish within %v\nstderr:\n%s", args, timeout, errb.String())
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("diperf %v: %v", args, err)
	}
	return r
}

// startTarget starts `diperf target` on a free loopback port (more: more
// flags) and returns its URL; it is killed when the test ends.
func startTarget(t *testing.T, workers int, serviceTime time.Duration, more ...string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, append([]string{"target", "--listen", addr, "--workers", fmt.Sprint(workers),
		"--service-time", serviceTime.String()}, more...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr + "/"
		}
		if time.Now().After(deadline) {
			t.Fatalf("target on %s never came up", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// writeExperiment writes an experiment file into a temp dir.
func writeExperiment(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readSummary(t *testing.T, dir string) *analyze.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s analyze.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// runFiles are the files every run directory must hold.
var runFiles = []string{"experiment.yaml", "samples.parquet", "testers.csv", "syncs.csv", "events.jsonl",
	"quanta.csv", "clients.csv", "summary.json", "report.html"}

func checkRunDir(t *testing.T, dir string) {
	t.Helper()
	for _, f := range runFiles {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("run directory lacks a non-empty %s (%v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "samples.spool")); err == nil {
		t.Errorf("the sample spool was left behind after a clean run")
	}
}

// eventsOf reads events.jsonl.
func eventsOf(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return parseEvents(t, b)
}

// liveEvents returns the events a running controller has written so far:
// none while events.jsonl is not there or still empty, and only whole
// lines (the last may be half written).
func liveEvents(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	b = b[:bytes.LastIndexByte(b, '\n')+1]
	if len(b) == 0 {
		return nil
	}
	return parseEvents(t, b)
}

// parseEvents decodes events.jsonl lines; a line that is not JSON fails
// the test.
func parseEvents(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("events.jsonl line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}
