package testbed

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/monitor"
)

// A log endpoint on another host is followed over ssh: tail -F -n 0
// there, its lines counted here, the stream stopped at the run's end.
func TestSSHExecFollowsALog(t *testing.T) {
	t.Parallel()
	x, host, conns := sshExecFor(t)
	p := filepath.Join(t.TempDir(), "access.log")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	last := -1.0
	s := &monitor.Scraper{Exec: x.Exec, Endpoints: []monitor.Endpoint{{Name: "web", Format: experiment.FormatLog,
		Interval: 200 * time.Millisecond, Host: host, Log: &experiment.LogSource{Path: p, Match: "^GET "}}},
		Sink: func(pts []monitor.Point) error {
			mu.Lock()
			defer mu.Unlock()
			for _, pt := range pts {
				if pt.Metric == monitor.LogLines {
					last = pt.Value
				}
			}
			return nil
		}}
	lines := func() float64 { mu.Lock(); defer mu.Unlock(); return last }
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	wait := func(want float64, probe bool) float64 {
		for deadline := time.Now().Add(10 * time.Second); lines() < want; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("lines_total %v, never %v", lines(), want)
			}
			if probe { // until tail -F -n 0 has opened the file
				f.WriteString("GET probe\n")
			}
		}
		if probe {
			time.Sleep(600 * time.Millisecond)
		}
		return lines()
	}
	c0 := wait(1, true)
	f.WriteString("GET a\nPOST b\nGET c\nGET d\n")
	if c1 := wait(c0+3, false); c1 != c0+3 {
		t.Errorf("lines_total %v after 3 more GETs from %v", c1, c0)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 1 || s.Errors()["web"] != 0 {
		t.Errorf("%d connections, %d failed points; want 1 and none", n, s.Errors()["web"])
	}
}
