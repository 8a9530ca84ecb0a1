package controller

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// Bounds on a tester's self-health (docs/design/018-tester-health.md):
// what no tester can have measured.
const (
	maxHealthCores  = 4096    // CPUs one tester may run on
	healthCPUSlack  = 5.0     // % over all its CPU: the kernel's tick and the second's jitter
	maxHealthStarts = 1e7     // calls started in one second (experiment.MaxRate)
	maxHealthFDs    = 1 << 24 // descriptors, and their limit
)

// healthKey is one tester's second.
type healthKey struct {
	slot int
	t    int64
}

// healthStore keeps the testers' self-health, at most one row per tester
// and second: each second lies in the tester's window (from its join to
// when it arrived), so it holds at most the run's seconds × its testers.
type healthStore struct {
	mu   sync.Mutex
	rows map[healthKey]sample.Health
}

// put keeps h unless its tester's second is held already.
func (hs *healthStore) put(h sample.Health) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	k := healthKey{h.Slot, h.T}
	if _, dup := hs.rows[k]; dup {
		return false
	}
	if hs.rows == nil {
		hs.rows = map[healthKey]sample.Health{}
	}
	hs.rows[k] = h
	return true
}

// all returns the rows kept, by slot, then second.
func (hs *healthStore) all() []sample.Health {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := make([]sample.Health, 0, len(hs.rows))
	for _, h := range hs.rows {
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b sample.Health) int {
		return cmp.Or(cmp.Compare(a.Slot, b.Slot), cmp.Compare(a.T, b.T))
	})
	return out
}

// onHealth takes a tester's batch of self-health seconds: each checked,
// mapped onto the run's timeline, kept once and shown live; what is
// impossible is refused and counted, never stored.
func (c *controller) onHealth(s *slot, p []byte) error {
	var b protocol.HealthBatch
	if err := protocol.DecodeJSON(protocol.TypeHealth, p, &b); err != nil {
		return err
	}
	if len(b.Seconds) > protocol.MaxHealthBatch {
		c.refuseMessage(s, fmt.Errorf("a health batch of %d seconds is more than %d", len(b.Seconds), protocol.MaxHealthBatch))
		return nil
	}
	now := time.Now().UnixNano()
	for _, r := range b.Seconds {
		if err := s.claims.localTime("health second", r.LocalNs, now); err != nil {
			c.refuseMessage(s, err)
			continue
		}
		if err := c.checkHealth(s, r, now); err != nil {
			c.refuseMessage(s, err)
			continue
		}
		c.mu.Lock()
		global := s.mapper.Global(r.LocalNs)
		c.mu.Unlock()
		h := healthRow(s.rec.Slot, global, r)
		if !c.health.put(h) {
			c.refuseMessage(s, fmt.Errorf("health second %d came already", h.T))
			continue
		}
		c.live.Health(h)
	}
	return nil
}

// healthRow is the row of r, which ended at global (ns): its second is
// the one that holds the middle of the second measured.
func healthRow(slot int, global int64, r protocol.HealthSecond) sample.Health {
	h := sample.Health{Slot: slot, T: floorDiv(global-int64(time.Second)/2, int64(time.Second)),
		CPUPct: r.CPUPct, CPUCores: r.CPUCores, HostBusyPct: nan(), HostStealPct: nan(), ThrottledPct: nan(),
		LagMeanMs: r.LagMeanMs, LagMaxMs: r.LagMaxMs, Starts: r.Starts, FDs: r.FDs, FDLimit: r.FDLimit}
	if r.HostBusyPct != nil {
		h.HostBusyPct = *r.HostBusyPct
	}
	if r.HostStealPct != nil {
		h.HostStealPct = *r.HostStealPct
	}
	if r.ThrottledPct != nil {
		h.ThrottledPct = *r.ThrottledPct
	}
	return h
}

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// writeHealth writes health.csv with every row kept.
func (c *controller) writeHealth() error {
	if err := rundir.WriteHealth(c.o.Dir, c.health.all()); err != nil {
		return fmt.Errorf("writing %s: %w", rundir.Health, err)
	}
	return nil
}
