package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// sink collects a scraper's points.
type sink struct {
	mu  sync.Mutex
	pts []Point
}

func (k *sink) add(p []Point) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pts = append(k.pts, p...)
	return nil
}

// values is metric's value at each point of endpoint, in order, and up's.
func (k *sink) values(metric, labels string) (vals, up []float64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.pts {
		switch {
		case p.Metric == metric && p.Labels == labels:
			vals = append(vals, p.Value)
		case p.Metric == Up:
			up = append(up, p.Value)
		}
	}
	return vals, up
}

func eqFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A log on this machine is followed through rotation and truncation; a
// point per interval counts what was appended, none of what was there;
// a file that is briefly missing is an up 0 point, never the end.
func TestLogFollowLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p := filepath.Join(dir, "access.log")
		appendTo(t, p, "GET before the run\n")
		k := &sink{}
		s := &Scraper{Sink: k.add, Endpoints: []Endpoint{{Name: "web", Format: experiment.FormatLog, Interval: time.Second,
			Log: &experiment.LogSource{Path: p, Match: "^GET "}}}}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- s.Run(ctx) }()
		time.Sleep(500 * time.Millisecond)
		appendTo(t, p, "GET a\nPOST b\nGET c\n")
		time.Sleep(time.Second) // 1.5 s
		os.Rename(p, p+".1")
		appendTo(t, p+".1", "GET d\n")
		time.Sleep(time.Second) // 2.5 s: the new file is not there yet
		appendTo(t, p, "GET e\nGET f\n")
		time.Sleep(time.Second) // 3.5 s
		os.Truncate(p, 0)
		appendTo(t, p, "GET g\n")
		time.Sleep(time.Second) // 4.5 s
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		lines, up := k.values(LogLines, "")
		if want := []float64{0, 2, 3, 5, 6, 6}; !eqFloats(lines, want) {
			t.Errorf("lines_total %v, want %v", lines, want)
		}
		if want := []float64{1, 1, 0, 1, 1, 1}; !eqFloats(up, want) {
			t.Errorf("up %v, want %v", up, want)
		}
	})
}

// fakeRemote runs each command on this machine as if on host "lab", and
// keeps them, so that a test can kill one.
type fakeRemote struct {
	mu    sync.Mutex
	cmds  []*exec.Cmd
	argvs [][]string
}

func (f *fakeRemote) exec(ctx context.Context, host string, argv []string) (io.ReadCloser, error) {
	if host != "lab" {
		return nil, fmt.Errorf("host %q, want lab", host)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.cmds, f.argvs = append(f.cmds, cmd), append(f.argvs, argv)
	f.mu.Unlock()
	return &fakeProc{out: out, cmd: cmd}, nil
}

func (f *fakeRemote) started() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.cmds)
}

type fakeProc struct {
	out io.Reader
	cmd *exec.Cmd
}

func (p *fakeProc) Read(b []byte) (int, error) {
	n, err := p.out.Read(b)
	if errors.Is(err, io.EOF) {
		if werr := p.cmd.Wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

func (p *fakeProc) Close() error {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	return nil
}

// until waits (at most 10 s) for lines_total to reach want, appending a
// probe line every poll when probe is set (tail -F -n 0 counts only what
// is written after it opened the file); it returns the count reached.
func until(t *testing.T, k *sink, p string, want float64, probe bool) float64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if v, _ := k.values(LogLines, ""); len(v) > 0 && v[len(v)-1] >= want {
			if !probe {
				return v[len(v)-1]
			}
			time.Sleep(500 * time.Millisecond) // the last probes, if any, are counted
			v, _ = k.values(LogLines, "")
			return v[len(v)-1]
		}
		if time.Now().After(deadline) {
			v, _ := k.values(LogLines, "")
			t.Fatalf("lines_total %v, never %v", v, want)
		}
		if probe {
			appendTo(t, p, "GET probe\n")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A log on another host is followed through tail -F -n 0 -- PATH run by
// Exec; a stream that ends is an up 0 point and is started again.
func TestLogFollowRemote(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "access.log")
	appendTo(t, p, "GET before\n")
	f, k := &fakeRemote{}, &sink{}
	s := &Scraper{Sink: k.add, Exec: f.exec, Endpoints: []Endpoint{{Name: "web", Format: experiment.FormatLog, Interval: 200 * time.Millisecond,
		Host: "lab", Log: &experiment.LogSource{Path: p, Match: "^GET "}}}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	c0 := until(t, k, p, 1, true)
	appendTo(t, p, "GET a\nPOST b\nGET c\nGET d\n")
	c1 := until(t, k, p, c0+3, false)
	f.mu.Lock()
	first := f.cmds[0]
	f.mu.Unlock()
	first.Process.Kill()
	for f.started() < 2 {
		time.Sleep(20 * time.Millisecond)
	}
	c2 := until(t, k, p, c1+1, true)
	appendTo(t, p, "GET e\nGET f\n")
	c3 := until(t, k, p, c2+2, false)
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines, up := k.values(LogLines, "")
	if c1 != c0+3 || c3 != c2+2 || lines[len(lines)-1] != c3 {
		t.Errorf("lines_total %v: want 3 more after %v, 2 more after %v, and no more", lines, c0, c2)
	}
	if !slices.Contains(up, 0) || up[len(up)-1] != 1 {
		t.Errorf("up %v: want a 0 for the stream that ended, 1 at the end", up)
	}
	if want := []string{"tail", "-F", "-n", "0", "--", p}; !slices.Equal(f.argvs[0], want) {
		t.Errorf("ran %q, want %q", f.argvs[0], want)
	}
	if n := s.Errors()["web"]; n < 1 {
		t.Errorf("errors %d, want the stream's end counted", n)
	}
}

// An endpoint of format log with no log: is a failure row, not a panic.
func TestLogFollowWithoutSource(t *testing.T) {
	t.Parallel()
	k := &sink{}
	s := &Scraper{Sink: k.add, Endpoints: []Endpoint{{Name: "web", Format: experiment.FormatLog, Interval: time.Second}}}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, up := k.values(LogLines, ""); len(up) != 1 || up[0] != 0 || s.Errors()["web"] != 1 {
		t.Errorf("up %v, errors %v; want one failure", up, s.Errors())
	}
}
