package monitor

import (
	"context"
	"os"
	"path/filepath"
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
