package controller

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// Limits of the rejected-connection log: each source's first few
// refusals, and at most a few a window from all sources, are logged in
// full ("rejected"); the rest are counted and summed up once a window
// ("rejected-summary"). 20,000 refusals then cost a few lines, not MBs.
const (
	rejectFullPerSource = 5
	rejectFullPerWindow = 20
	rejectInterval      = 10 * time.Second
	rejectMaxSources    = 4096 // sources tracked one by one; past it, counted together
)

// rejectLog is the aggregated, rate-limited log of refused connections.
// Safe for concurrent use.
type rejectLog struct {
	add func(event string, slot int, id, detail string)

	mu         sync.Mutex
	perSource  map[string]int // refusals logged in full, by source host
	windowFrom time.Time
	full       int            // logged in full this window
	suppressed int            // counted, not logged, this window
	bySource   map[string]int // suppressed this window, by source host
	last       string         // the last suppressed reason
}

func newRejectLog(add func(event string, slot int, id, detail string)) *rejectLog {
	return &rejectLog{add: add, perSource: map[string]int{}, bySource: map[string]int{}, windowFrom: time.Now()}
}

// reject records that the connection from addr was refused for err.
func (r *rejectLog) reject(addr net.Addr, err error) {
	src := sourceOf(addr)
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.windowFrom) >= rejectInterval {
		r.flushLocked()
	}
	if r.perSource[src] < rejectFullPerSource && r.full < rejectFullPerWindow {
		if _, known := r.perSource[src]; known || len(r.perSource) < rejectMaxSources {
			r.perSource[src]++
		}
		r.full++
		r.add("rejected", -1, "", fmt.Sprintf("%v: %v", addr, err))
		return
	}
	r.suppressed++
	if _, known := r.bySource[src]; !known && len(r.bySource) >= rejectMaxSources {
		src = "others"
	}
	r.bySource[src]++
	r.last = err.Error()
}

// flush logs the summary of the current window, if anything was counted.
func (r *rejectLog) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
}

func (r *rejectLog) flushLocked() {
	now := time.Now()
	if r.suppressed > 0 {
		top, most := "", 0
		for s, n := range r.bySource {
			if n > most || (n == most && s < top) {
				top, most = s, n
			}
		}
		r.add("rejected-summary", -1, "", fmt.Sprintf("%d more connections rejected in %v from %d sources (most from %s: %d); last: %s",
			r.suppressed, now.Sub(r.windowFrom).Round(time.Millisecond), len(r.bySource), top, most, r.last))
	}
	r.windowFrom, r.full, r.suppressed, r.last = now, 0, 0, ""
	clear(r.bySource)
}

// flushEvery flushes every interval until the returned stop is called,
// which flushes a last time.
func (r *rejectLog) flushEvery(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tk := time.NewTicker(interval)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				r.flush()
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		r.flush()
	}
}

// sourceOf is the host part of addr: a source's connections come from
// many ports.
func sourceOf(addr net.Addr) string {
	if addr == nil {
		return "unknown"
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}
