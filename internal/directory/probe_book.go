package directory

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// probeBook holds the probes in memory: they last minutes, and a
// directory restarted forgets them (their requesters read 404 and say
// so). Every bound of the on-demand tests is kept here.
type probeBook struct {
	mu        sync.Mutex
	byID      map[string]*probeEntry
	order     []string                 // ids, oldest first
	waiters   map[string]chan struct{} // a sensor's long poll, by its name
	lastPoll  map[string]time.Time     // when a sensor's last poll ended, by its name
	recent    map[string][]time.Time   // requests of the last minute, by requester
	open      map[string]int           // probes pending or running, by requester
	pending   int                      // probes pending or running, in all
	ended     map[string]uint64        // probes ended, by final state
	perMinute int
	perOwner  int
	swept     time.Time
}

// probeEntry is a probe and what the directory keeps beside it.
type probeEntry struct {
	Probe
	requester string
	since     time.Time // when it entered its state
	answering bool      // its answer is being stored
}

func newProbeBook(perMinute, perOwner int) *probeBook {
	if perMinute <= 0 {
		perMinute = DefaultProbesPerMinute
	}
	if perOwner <= 0 {
		perOwner = DefaultProbesPending
	}
	return &probeBook{byID: map[string]*probeEntry{}, waiters: map[string]chan struct{}{}, lastPoll: map[string]time.Time{}, recent: map[string][]time.Time{},
		open: map[string]int{}, ended: map[string]uint64{}, perMinute: perMinute, perOwner: perOwner}
}

// rate counts a request of requester at now, refused when it has
// asked DefaultProbesPerMinute times in the last minute, or has as many
// probes open as it may, or the directory as many as it holds. A refused
// request counts too: a requester that floods refusals waits the longer.
func (b *probeBook) rate(requester string, now time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweep(now)
	r := b.recent[requester]
	for len(r) > 0 && now.Sub(r[0]) >= time.Minute {
		r = r[1:]
	}
	if len(r) >= b.perMinute {
		b.recent[requester] = r
		wait := r[0].Add(time.Minute).Sub(now)
		e := refusal(http.StatusTooManyRequests, "", "%d probes a minute from one address at most; the next one possible in %v",
			b.perMinute, wait.Round(time.Second))
		e.RetryAfter = wait
		return e
	}
	b.recent[requester] = append(r, now)
	return b.room(requester)
}

// room refuses a probe of requester's when it has as many open as it
// may, or the directory as many as it holds.
func (b *probeBook) room(requester string) error {
	if b.pending >= MaxPendingProbes {
		e := refusal(http.StatusTooManyRequests, "", "the directory holds %d probes pending, its most; try again in a minute", b.pending)
		e.RetryAfter = time.Minute
		return e
	}
	if n := b.open[requester]; n >= b.perOwner {
		e := refusal(http.StatusTooManyRequests, "", "%d of your probes are pending or running, the most from one address; "+
			"ask again when one has ended", n)
		e.RetryAfter = 5 * time.Second
		return e
	}
	return nil
}

// add books a probe requested by requester at now (room permitting) and
// wakes its source sensor's poll.
func (b *probeBook) add(req ProbeRequest, requester string, now time.Time) (Probe, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.room(requester); err != nil {
		return Probe{}, err
	}
	e := &probeEntry{Probe: Probe{ID: newProbeID(), Src: req.Src, Dst: req.Dst, Kind: req.Kind, State: ProbePending,
		RequestedAt: now.UTC()}, requester: requester, since: now}
	b.byID[e.ID] = e
	b.order = append(b.order, e.ID)
	b.open[requester]++
	b.pending++
	b.forget()
	if w := b.waiters[req.Src]; w != nil {
		close(w)
		delete(b.waiters, req.Src)
	}
	return e.Probe, nil
}

// isPolling reports whether sensor name asks for its probes at now.
func (b *probeBook) isPolling(name string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.polling(name, now)
}

// newProbeID is 16 random hex digits: ids are not guessed.
func newProbeID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// get is the probe id, expired if its time has come.
func (b *probeBook) get(id string, now time.Time) (Probe, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweep(now)
	e := b.byID[id]
	if e == nil {
		return Probe{}, false
	}
	return e.Probe, true
}
