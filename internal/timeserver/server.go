package timeserver

import (
	"net/netip"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	// DefaultRatePerSource is the requests/s answered per source IP.
	DefaultRatePerSource = 5000
	// DefaultBurstPerSource is the burst of requests answered per source IP.
	DefaultBurstPerSource = 10000
	// DefaultMaxSources is the number of source IPs given their own bucket.
	DefaultMaxSources = 65536
)

// Config tunes a Server. A zero or negative field takes its default.
type Config struct {
	// RatePerSource is the sustained requests/s answered per source IP
	// (default DefaultRatePerSource); requests beyond it are dropped.
	RatePerSource float64
	// BurstPerSource is the token bucket depth per source IP (default
	// DefaultBurstPerSource).
	BurstPerSource float64
	// MaxSources bounds the number of source IPs tracked (default
	// DefaultMaxSources); beyond it, new sources share one bucket.
	MaxSources int
	// MaxTCPConns bounds the TCP connections open at once (default
	// DefaultMaxTCPConns; see tcpLimits): a process that serves more than
	// the time server keeps its descriptors for its own work.
	MaxTCPConns int
}

// DefaultMaxTCPConns is the default of Config.MaxTCPConns.
const DefaultMaxTCPConns = maxTCPConns

// withDefaults returns c with its unset fields set to the defaults.
func (c Config) withDefaults() Config {
	if c.RatePerSource <= 0 {
		c.RatePerSource = DefaultRatePerSource
	}
	if c.BurstPerSource <= 0 {
		c.BurstPerSource = DefaultBurstPerSource
	}
	if c.MaxSources <= 0 {
		c.MaxSources = DefaultMaxSources
	}
	return c
}

// Stats counts what a Server did with the requests it received.
type Stats struct {
	Answered    uint64 // requests answered
	RateLimited uint64 // valid requests dropped by the per-source limit
	Malformed   uint64 // datagrams or TCP requests that were not a valid request
	// Unauthentic counts the authenticated requests refused: a key id the
	// server does not hold, or a MAC that does not check (forged or
	// altered on the path). They are not answered.
	Unauthentic uint64
	// ConnsClosed counts the TCP connections the server closed for its
	// connection limits (see ServeTCP): idle past their timeout, or to make
	// room for a new one, or new ones refused.
	ConnsClosed uint64
}

// Server answers time requests over UDP and TCP. One Server may serve
// several sockets at once; its rate limit and Stats are shared by all.
type Server struct {
	lim                              *limiter
	tcpLim                           tcpLimits
	answered, rateLimited, malformed atomic.Uint64
	connsClosed                      atomic.Uint64
	unauthentic                      atomic.Uint64
	keys                             keyring
}

// New returns a Server configured by cfg.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{lim: newLimiter(cfg.RatePerSource, cfg.BurstPerSource, cfg.MaxSources), tcpLim: defaultTCPLimits}
	if cfg.MaxTCPConns > 0 {
		s.tcpLim.maxConns = cfg.MaxTCPConns
	}
	return s
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{
		Answered:    s.answered.Load(),
		RateLimited: s.rateLimited.Load(),
		Malformed:   s.malformed.Load(),
		ConnsClosed: s.connsClosed.Load(),
		Unauthentic: s.unauthentic.Load(),
	}
}

// AddKey makes the server accept requests authenticated with k (and
// answer them authenticated), replacing a key of the same ID.
func (s *Server) AddKey(k Key) { s.keys.add(k) }

// RemoveKey makes the server refuse requests authenticated with the key
// named id.
func (s *Server) RemoveKey(id uint32) { s.keys.remove(id) }

// Keys returns the number of keys the server holds.
func (s *Server) Keys() int { return s.keys.len() }

// authenticate returns the key of authenticated request p (whose parse is
// r), nil for an unauthenticated one; ok is false when its key is unknown
// or its MAC does not check.
func (s *Server) authenticate(m *macer, p []byte, r request) (k *keyState, ok bool) {
	if !r.auth {
		return nil, true
	}
	if k = s.keys.get(r.keyID); k == nil || !m.requestAuthentic(k, p) {
		return nil, false
	}
	return k, true
}

// allowOne takes the limiter lock for a single request (TCP).
func (s *Server) allowOne(src netip.Addr, t time.Time) bool {
	s.lim.mu.Lock()
	defer s.lim.mu.Unlock()
	return s.lim.allow(src, s.lim.now(t))
}
