// Package clocksync keeps a tester's estimate of global time: it probes a
// time server in bursts, keeps the probe with the shortest round trip (the
// NTP clock-filter idea), accumulates the sync records and maps the local
// clock onto global time with an error bound between syncs.
package clocksync

import (
	"fmt"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/timeserver"
)

// Timing of syncs.
const (
	ProbeTimeout = time.Second     // wait for one probe's reply at most this long
	FirstResync  = 2 * time.Second // the second sync comes this soon after the first
)

// NextInterval returns the wait before the next re-sync: syncs come soon
// after the first and then at doubling intervals up to the sync interval,
// so that the drift is measured early and ever more precisely.
func NextInterval(prev, interval time.Duration) time.Duration {
	if prev <= 0 {
		return min(FirstResync, interval)
	}
	return min(2*prev, interval)
}

// Syncer syncs one local clock with one time server. Safe for concurrent
// use: one goroutine syncs while others read Global.
type Syncer struct {
	ts     *timeserver.Client
	clk    clock.Reader
	probes int
	mu     sync.Mutex
	recs   []clock.Record
	mapper *clock.Mapper
	health Health
	check  clock.Consistency // the records kept, for the next one
}

// New dials the time server (network "udp" or "tcp").
func New(network, addr string, clk clock.Reader, probes int) (*Syncer, error) {
	return NewVia(network, addr, nil, clk, probes)
}

// NewVia is New whose TCP connections to the time server are opened by
// via (nil: plain TCP), e.g. the tester's transport.
func NewVia(network, addr string, via timeserver.DialFunc, clk clock.Reader, probes int) (*Syncer, error) {
	return NewAuth(network, addr, via, nil, clk, probes)
}

// NewAuth is NewVia whose probes are authenticated with key (nil: not
// authenticated): a reply that fails authentication is refused, counted
// in Health, and never used.
func NewAuth(network, addr string, via timeserver.DialFunc, key *timeserver.Key, clk clock.Reader, probes int) (*Syncer, error) {
	ts, err := timeserver.DialAuth(network, addr, via, key)
	if err != nil {
		return nil, fmt.Errorf("time server %s %s: %w", network, addr, err)
	}
	return &Syncer{ts: ts, clk: clk, probes: probes, mapper: clock.NewMapper(nil),
		health: Health{Authenticated: key != nil}}, nil
}

// Sync runs one burst of probes and keeps the one with the shortest round
// trip as a new sync record. A record that disagrees with the ones kept
// before it beyond their error bounds (clock.Consistency) is returned
// but not used for the mapping, as the controller does not, and counted
// in Health.
func (s *Syncer) Sync() (clock.Record, error) {
	probes, err := s.ts.Burst(s.clk, s.probes, ProbeTimeout)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.health.Refused = s.ts.Refused()
	if err != nil {
		return clock.Record{}, fmt.Errorf("clock sync: %w", err)
	}
	rec, ok := clock.Best(probes)
	if !ok {
		return rec, fmt.Errorf("clock sync: no probe answered")
	}
	s.health.Disagreeing, s.health.Probes = clock.Disagreeing(probes), len(probes)
	if ok, _, _ := s.check.Check(rec); !ok {
		s.health.Inconsistent++
		return rec, nil
	}
	s.recs = append(s.recs, rec)
	s.mapper = clock.NewMapper(s.recs)
	return rec, nil
}

// Health says how far a Syncer's syncs can be trusted.
type Health struct {
	// Authenticated is whether its probes and their replies are
	// authenticated with the tester's time key.
	Authenticated bool
	// Refused counts the replies refused so far: they failed
	// authentication (forged or altered on the path).
	Refused uint64
	// Disagreeing counts, in the last burst of Probes probes answered,
	// those that disagree with the one kept beyond both their error
	// bounds (clock.Disagreeing): honest probes never do.
	Disagreeing, Probes int
	// Inconsistent counts the syncs left out of the mapping: they
	// disagree with the ones before them beyond their error bounds.
	Inconsistent int
}

// Health returns the Syncer's Health after its last sync.
func (s *Syncer) Health() Health {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.health
}

// Mapper returns the current mapping from local to global time.
func (s *Syncer) Mapper() *clock.Mapper {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mapper
}

// Global returns the current estimate of global time (Unix ns) and the
// bound on its error (ns).
func (s *Syncer) Global() (now, bound int64) {
	m := s.Mapper()
	local := s.clk.Now()
	off, b := m.Estimate(local)
	return local + off, b
}

// Close closes the connection to the time server.
func (s *Syncer) Close() error { return s.ts.Close() }
