package target

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// Paths with a fixed meaning; every other path is a call.
const (
	// PathMetrics serves Prometheus text metrics.
	PathMetrics = "/metrics"
	// PathServedCSV serves the per-second served counts as CSV.
	PathServedCSV = "/served.csv"
	// PathHealthz answers 200 "ok".
	PathHealthz = "/healthz"
)

// Server is the demo service. It is safe for concurrent use.
type Server struct {
	cfg      Config
	slots    *slots
	log      *servedLog
	served   atomic.Int64
	rejected atomic.Int64

	now     func() time.Time      // clock for served seconds
	onServe func(r *http.Request) // test hook: called once a slot is held
	born    time.Time             // when New made it: Config.PauseAt counts from here
}

// Stats is a snapshot of the server's counters and gauges.
type Stats struct {
	// Served is the number of calls completed.
	Served int64
	// Rejected is the number of calls answered 503 because the queue was full.
	Rejected int64
	// InService is the number of calls currently holding a slot.
	InService int
	// Queued is the number of calls currently waiting for a slot.
	Queued int
}

// New returns a Server for cfg, or an error if cfg is invalid.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Server{
		cfg:   cfg,
		slots: newSlots(cfg.Workers, cfg.Queue),
		log:   newServedLog(),
		now:   time.Now,
		born:  time.Now(),
	}, nil
}

// Config returns the configuration the server was made with.
func (s *Server) Config() Config { return s.cfg }

// Handler returns the HTTP handler serving calls, /metrics, /served.csv
// and /healthz.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.route)
}

// route dispatches a request by path.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case PathMetrics:
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_ = s.writeMetrics(w)
	case PathServedCSV:
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		_ = s.WriteServedCSV(w)
	case PathHealthz:
		writeText(w, http.StatusOK, "ok\n")
	default:
		s.call(w, r)
	}
}

// call serves one call: wait for a slot, hold it for a service time, answer.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	err := s.slots.acquire(r.Context())
	switch {
	case errors.Is(err, errQueueFull):
		s.rejected.Add(1)
		writeText(w, http.StatusServiceUnavailable, "queue full\n")
		return
	case err != nil:
		return // client went away while waiting: not served
	}
	if s.onServe != nil {
		s.onServe(r)
	}
	time.Sleep(s.pauseLeft() + s.cfg.drawServiceTime()) // a stall, then the call's work
	s.log.add(s.now().Unix())
	s.served.Add(1)
	s.slots.release()
	writeText(w, http.StatusOK, "served\n")
}

// pauseLeft returns how much of the configured pause is still ahead of a
// call served now (0 outside the pause).
func (s *Server) pauseLeft() time.Duration {
	if s.cfg.PauseFor <= 0 {
		return 0
	}
	from := s.born.Add(s.cfg.PauseAt)
	to := from.Add(s.cfg.PauseFor)
	if now := s.now(); !now.Before(from) && now.Before(to) {
		return to.Sub(now)
	}
	return 0
}

// writeText answers with a plain-text body.
func writeText(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

// Stats returns a snapshot of the server's counters and gauges.
func (s *Server) Stats() Stats {
	busy, queued := s.slots.counts()
	return Stats{
		Served:    s.served.Load(),
		Rejected:  s.rejected.Load(),
		InService: busy,
		Queued:    queued,
	}
}

// Served returns the calls completed per second, one row per second from
// the first to the last second with anything served, ascending, with zero
// rows for empty seconds in between. It is nil if nothing was served.
func (s *Server) Served() []SecondCount {
	return s.log.rows()
}

// WriteServedCSV writes Served as CSV with the header "unix_s,served".
func (s *Server) WriteServedCSV(w io.Writer) error {
	return writeCSV(w, s.Served())
}
