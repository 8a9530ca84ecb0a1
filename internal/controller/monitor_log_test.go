package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/monitor"
)

// monitor-stopped says what a log endpoint left out: lines by reason,
// values refused.
func TestMonitorStoppedSaysLogRefusals(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.log") // appears after the first point: read from its start
	first := make(chan struct{})
	var once sync.Once
	s := &monitor.Scraper{
		Sink: func([]monitor.Point) error { once.Do(func() { close(first) }); return nil },
		Endpoints: []monitor.Endpoint{{Name: "web", Format: experiment.FormatLog, Interval: time.Hour,
			Log: &experiment.LogSource{Path: p, Match: `^GET (\S+)$`, Fields: []experiment.LogField{{Name: "bytes", Group: 1}}}}},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	<-first
	long := "GET " + strings.Repeat("9", 70<<10)
	if err := os.WriteFile(p, []byte(long+"\nGET 12\nGET nan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := logCounts(s), "; web: lines refused (too_long 1), 1 values refused"; got != want {
		t.Errorf("logCounts %q, want %q", got, want)
	}
}
