package directory

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Lease bounds and default.
const (
	DefaultTTL = 90 * time.Second
	MinTTL     = time.Second
)

// Server answers the directory's API from a Store.
type Server struct {
	store   *Store
	token   []byte
	ttl     time.Duration
	now     func() time.Time
	quota   *quota   // registrations of new names (quota.go)
	refused refusals // 4xx answers, for /metrics (refused_metrics.go)
	seen    seenSigs // the signatures taken within SignatureWindow (replay.go)

	probes *probeBook // on-demand tests (probe*.go)
}

// Options configure a Server.
type Options struct {
	Token []byte           // the bearer token every request must carry
	TTL   time.Duration    // the lease of a registration that asks none; 0 = DefaultTTL
	Now   func() time.Time // the clock (nil = time.Now); tests inject one
	// MaxSensors is the most sensors registered at once (0 =
	// DefaultMaxSensors; above MaxSensorsLimit, MaxSensorsLimit).
	MaxSensors int
	// NewNamesPerHour is how many names new to the directory one source
	// may register in an hour (0 = DefaultNewNamesPerHour).
	NewNamesPerHour int
	// ProbesPerMinute and ProbesPending bound one requester's on-demand
	// tests: asked in a minute, open at once (0 = DefaultProbesPerMinute,
	// DefaultProbesPending).
	ProbesPerMinute, ProbesPending int
}

// NewServer returns a server over store.
func NewServer(store *Store, o Options) *Server {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{store: store, token: o.Token, ttl: o.TTL, now: o.Now}
	s.quota = newQuota(o.quotas())
	s.probes = newProbeBook(o.ProbesPerMinute, o.ProbesPending)
	return s
}

// Handler returns the API: every path requires the bearer token.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/sensors", s.register)
	mux.HandleFunc("POST /v1/sensors/{name}/renew", s.renew)
	mux.HandleFunc("DELETE /v1/sensors/{name}", s.deregister)
	mux.HandleFunc("GET /v1/sensors", s.sensors)
	mux.HandleFunc("POST /v1/results", s.addResult)
	mux.HandleFunc("GET /v1/results", s.results)
	mux.HandleFunc("POST /v1/forecasts", s.addForecast)
	mux.HandleFunc("GET /v1/forecasts", s.forecasts)
	mux.HandleFunc("GET /metrics", s.metrics)
	s.probeRoutes(mux)
	return s.auth(s.refused.counted(s.verify(mux)))
}

// auth answers 401 with an empty body to a request without the token,
// and closes its connection; a request with it proves its connection
// (preauth.Proved).
func (s *Server) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + string(s.token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if len(s.token) == 0 || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="diperf directory"`)
			w.Header().Set("Connection", "close") // one request a connection for who has no token
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		preauth.Proved(r)
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		next.ServeHTTP(w, r)
	})
}

func (s *Server) lease(name string, ttl time.Duration, now time.Time) Lease {
	return Lease{Name: name, TTLSeconds: ttl.Seconds(), RenewAfterS: (ttl / 3).Seconds(), ExpiresAt: now.Add(ttl).UTC()}
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var reg Registration
	if err := Decode(r.Body, &reg); err != nil {
		writeError(w, err)
		return
	}
	ttl := s.ttl
	if reg.TTLSeconds > 0 {
		ttl = max(time.Duration(reg.TTLSeconds*float64(time.Second)), MinTTL)
	}
	undo, err := s.claim(r, reg.Name)
	if err != nil {
		writeError(w, err)
		return
	}
	now := s.now()
	release, err := s.admit(r.Context(), r, reg.Name, now)
	if err != nil {
		undo()
		writeError(w, err)
		return
	}
	defer release()
	if err := s.store.Register(r.Context(), reg, ttl, now); err != nil {
		undo()
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.lease(reg.Name, ttl, now))
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := checkToken("name", name, MaxName); err != nil {
		writeError(w, err)
		return
	}
	if err := s.authorize(r, "name", name); err != nil {
		writeError(w, err)
		return
	}
	now := s.now()
	ttl, err := s.store.Renew(r.Context(), name, now)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.lease(name, ttl, now))
}

func (s *Server) sensors(w http.ResponseWriter, r *http.Request) {
	group := r.URL.Query().Get("group")
	if group != "" {
		if err := checkToken("group", group, MaxShort); err != nil {
			writeError(w, err)
			return
		}
	}
	list, err := s.store.Sensors(r.Context(), group, s.now())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) addResult(w http.ResponseWriter, r *http.Request) {
	var res Result
	if err := Decode(r.Body, &res); err != nil {
		writeError(w, err)
		return
	}
	if err := s.admitPair(r.Context(), res.Src, res.Dst, "measured_at", res.MeasuredAt); err != nil {
		writeError(w, err)
		return
	}
	if err := s.authorize(r, "src", res.Src); err != nil {
		writeError(w, err)
		return
	}
	id, err := s.store.AddResult(r.Context(), res)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]int64{"id": id})
}

func (s *Server) results(w http.ResponseWriter, r *http.Request) {
	q, err := ParseQuery(r.URL.Query())
	if err != nil {
		writeError(w, err)
		return
	}
	list, next, err := s.store.ResultsPage(r.Context(), q)
	if err != nil {
		writeError(w, err)
		return
	}
	setNext(w, next)
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) addForecast(w http.ResponseWriter, r *http.Request) {
	var f Forecast
	if err := Decode(r.Body, &f); err != nil {
		writeError(w, err)
		return
	}
	if err := s.admitPair(r.Context(), f.Src, f.Dst, "made_at", f.MadeAt); err != nil {
		writeError(w, err)
		return
	}
	if err := s.authorize(r, "src", f.Src); err != nil {
		writeError(w, err)
		return
	}
	id, err := s.store.AddForecast(r.Context(), f)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]int64{"id": id})
}

func (s *Server) forecasts(w http.ResponseWriter, r *http.Request) {
	q, err := ParseQuery(r.URL.Query())
	if err != nil {
		writeError(w, err)
		return
	}
	list, next, err := s.store.ForecastsPage(r.Context(), q)
	if err != nil {
		writeError(w, err)
		return
	}
	setNext(w, next)
	writeJSON(w, http.StatusOK, list)
}

// writeError answers 400 for a FieldError, 403 for a request not its
// sender's to make (ErrForbidden, OwnerError), 404 for an unknown sensor,
// 413 for a body too large, 500 for the rest.
func writeError(w http.ResponseWriter, err error) {
	var fe *FieldError
	var mbe *http.MaxBytesError
	var rf *Refusal
	var oe *OwnerError
	switch {
	case errors.As(err, &rf):
		writeRefusal(w, rf)
	case errors.As(err, &oe):
		writeJSON(w, http.StatusForbidden, &FieldError{Field: oe.Field, Msg: oe.Msg})
	case errors.Is(err, ErrForbidden):
		writeJSON(w, http.StatusForbidden, &FieldError{Msg: err.Error()})
	case errors.Is(err, errBusySigs):
		writeJSON(w, http.StatusServiceUnavailable, &FieldError{Msg: err.Error()})
	case errors.As(err, &mbe):
		writeJSON(w, http.StatusRequestEntityTooLarge, &FieldError{Msg: fmt.Sprintf("body larger than %d bytes", mbe.Limit)})
	case errors.As(err, &fe):
		writeJSON(w, http.StatusBadRequest, fe)
	case errors.Is(err, ErrNotRegistered):
		writeJSON(w, http.StatusNotFound, &FieldError{Field: "name", Msg: "sensor not registered; register again"})
	case errors.Is(err, context.Canceled):
		w.WriteHeader(499)
	default:
		writeJSON(w, http.StatusInternalServerError, &FieldError{Msg: err.Error()})
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the peer went away; nothing to tell it
}
