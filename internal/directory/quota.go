package directory

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Registration quotas: the sensor list a client fetches must fit in what
// it reads of an answer (MaxAnswer), so the number of sensors and the size
// of each are bounded, and one source cannot take new names faster than a
// mesh of the scale (1,000 sensors) needs.
const (
	// MaxRegistrationJSON bounds a registration as JSON (as the directory
	// writes it, escapes included).
	MaxRegistrationJSON = 4096
	// MaxListedSensor bounds a sensor as GET /v1/sensors lists it: its
	// registration, the lease granted, its state and three times.
	MaxListedSensor = MaxRegistrationJSON + 512
	// MaxSensorsLimit is the most sensors a directory may hold: their
	// list (each at most MaxListedSensor, a comma between, the brackets)
	// still fits in MaxAnswer.
	MaxSensorsLimit = (MaxAnswer - 2) / (MaxListedSensor + 1)
	// DefaultMaxSensors is the directory's number of sensors when not set
	// (diperf directory --max-sensors): ten times the scale.
	DefaultMaxSensors = 10000
	// DefaultNewNamesPerHour is how many names new to the directory one
	// source may register in an hour (a burst of as many, then evenly):
	// a whole mesh of the scale from one host.
	DefaultNewNamesPerHour = 1000
)

// checkSize bounds the registration as the directory will list it.
func (r *Registration) checkSize() error {
	b, err := json.Marshal(r)
	if err != nil {
		return fieldErr("", "cannot be written as JSON: %v", err)
	}
	if len(b) > MaxRegistrationJSON {
		return fieldErr("", "the registration is %d bytes as JSON; at most %d", len(b), MaxRegistrationJSON)
	}
	return nil
}

// quota admits registrations of names new to the directory: while there
// is room (fewer than max sensors) and their source has a new name left.
type quota struct {
	mu      sync.Mutex // held from the check to the store's write of a new name
	max     int
	perHour int
	buckets map[string]*bucket
	pruneAt int
}

// bucket is a source's allowance of new names at a time.
type bucket struct {
	tokens float64
	at     time.Time
}

func newQuota(max, perHour int) *quota {
	return &quota{max: max, perHour: perHour, buckets: map[string]*bucket{}, pruneAt: 1024}
}

// admit checks a registration of name from r's source at now. For a name
// new to the directory it returns with the quota locked until release is
// called (after the store's write), so that concurrent registrations
// cannot pass the number of sensors together.
func (s *Server) admit(ctx context.Context, r *http.Request, name string, now time.Time) (release func(), err error) {
	q := s.quota
	q.mu.Lock()
	known, n, err := s.store.nameAndCount(ctx, name)
	switch {
	case err != nil:
	case known:
		q.mu.Unlock()
		return func() {}, nil
	case n >= q.max:
		err = refusal(http.StatusForbidden, "name", "the directory holds %d sensors, its most (--max-sensors); "+
			"no new name is taken until an operator removes some", n)
	default:
		if wait := q.take(sourceOf(r.RemoteAddr), now); wait > 0 {
			e := refusal(http.StatusTooManyRequests, "name", "%d new names an hour from one address at most (--new-names-per-hour); "+
				"try again in %v", q.perHour, wait.Round(time.Second))
			e.RetryAfter, err = wait, e
		}
	}
	if err != nil {
		q.mu.Unlock()
		return nil, err
	}
	return q.mu.Unlock, nil
}

// take takes one of src's new names at now; if none is left, it says
// how long until one is.
func (q *quota) take(src string, now time.Time) (wait time.Duration) {
	rate := float64(q.perHour) / float64(time.Hour) // per ns
	b := q.buckets[src]
	if b == nil {
		q.prune(now, rate)
		b = &bucket{tokens: float64(q.perHour), at: now}
		q.buckets[src] = b
	}
	b.tokens = min(float64(q.perHour), b.tokens+float64(now.Sub(b.at))*rate)
	b.at = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / rate)
	}
	b.tokens--
	return 0
}

// prune forgets the sources whose allowance is whole again, when there
// are many: the map holds at most the sources of recent new names.
func (q *quota) prune(now time.Time, rate float64) {
	if len(q.buckets) < q.pruneAt {
		return
	}
	for src, b := range q.buckets {
		if b.tokens+float64(now.Sub(b.at))*rate >= float64(q.perHour) {
			delete(q.buckets, src)
		}
	}
	q.pruneAt = max(1024, 2*len(q.buckets))
}

// sourceOf is the source new names are counted under: the IP address of
// the peer (IPv4 in IPv6 unmapped), an IPv6 peer's /64 (one host's usual
// share).
func sourceOf(remote string) string {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			return remote
		}
		return host
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.WithZone("").Prefix(64)
		return p.String()
	}
	return a.String()
}

// quotas are o's MaxSensors and NewNamesPerHour, defaults filled in.
func (o Options) quotas() (maxSensors, perHour int) {
	maxSensors, perHour = o.MaxSensors, o.NewNamesPerHour
	if maxSensors <= 0 {
		maxSensors = DefaultMaxSensors
	}
	if perHour <= 0 {
		perHour = DefaultNewNamesPerHour
	}
	return min(maxSensors, MaxSensorsLimit), perHour
}
