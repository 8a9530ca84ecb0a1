package live

import (
	"strings"

	"github.com/diperf/diperf/internal/clock"
)

// tester returns slot's row, growing the table. Called with r.mu held.
func (r *Run) tester(slot int) *Tester {
	slot = max(slot, 0)
	for len(r.testers) <= slot {
		r.testers = append(r.testers, &Tester{Index: len(r.testers), State: StateLaunched})
	}
	return r.testers[slot]
}

// Event tells r of a controller event about tester slot (slot < 0: about
// no tester) at tNs (Unix ns): the events of events.jsonl. Those that move
// a tester between states do so; a failed tester stays failed.
func (r *Run) Event(kind string, slot int, id, detail string, tNs int64) {
	if r == nil || slot < 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tester(slot)
	if id != "" {
		t.ID = id
		if i := strings.LastIndexByte(id, ':'); i > 0 && t.Host == "" {
			t.Host = id[:i]
		}
	}
	next := ""
	switch kind {
	case "launched":
		next = StateLaunched
	case "admitted":
		next = StateJoined
	case "started":
		next = StateRunning
	case "stopped":
		next = StateDone
	case "failed", "tester-lost":
		next = StateFailed
	}
	if next == "" || t.State == StateFailed || (t.State == StateDone && next != StateFailed) {
		return
	}
	t.State, t.ChangedNs = next, tNs
	if detail != "" && (next == StateFailed || next == StateDone) {
		t.Detail = detail
	}
}

// Host tells r where tester slot runs.
func (r *Run) Host(slot int, host string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.tester(slot).Host = host
	r.mu.Unlock()
}

// Sync tells r of one of tester slot's clock syncs.
func (r *Run) Sync(slot int, rec clock.Record) {
	if r == nil {
		return
	}
	r.mu.Lock()
	t := r.tester(slot)
	t.OffsetMs, t.BoundMs = float64(rec.OffsetNs)/1e6, float64(rec.BoundNs)/1e6
	t.Syncs++
	r.mu.Unlock()
}

// running counts the testers whose client loop runs. Called with r.mu held.
func (r *Run) running() int {
	n := 0
	for _, t := range r.testers {
		if t.State == StateRunning {
			n++
		}
	}
	return n
}
