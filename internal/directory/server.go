package directory

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Lease bounds and default.
const (
	DefaultTTL = 90 * time.Second
	MinTTL     = time.Second
)

// Server answers the directory's API from a Store.
type Server struct {
	store *Store
	token []byte
	ttl   time.Duration
	now   func() time.Time
}

// Options configure a Server.
type Options struct {
	Token []byte           // the bearer token every request must carry
	TTL   time.Duration    // the lease of a registration that asks none; 0 = DefaultTTL
	Now   func() time.Time // the clock (nil = time.Now); tests inject one
}

// NewServer returns a server over store.
func NewServer(store *Store, o Options) *Server {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Server{store: store, token: o.Token, ttl: o.TTL, now: o.Now}
}

// Handler returns the API: every path requires the bearer token.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/sensors", s.register)
	mux.HandleFunc("POST /v1/sensors/{name}/renew", s.renew)
	mux.HandleFunc("GET /v1/sensors", s.sensors)
	mux.HandleFunc("POST /v1/results", s.addResult)
	mux.HandleFunc("GET /v1/results", s.results)
	mux.HandleFunc("POST /v1/forecasts", s.addForecast)
	mux.HandleFunc("GET /v1/forecasts", s.forecasts)
	mux.HandleFunc("GET /metrics", s.metrics)
	return s.auth(mux)
}

// auth answers 401 with an empty body to a request without the token.
func (s *Server) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + string(s.token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if len(s.token) == 0 || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="diperf directory"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
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
	now := s.now()
	if err := s.store.Register(r.Context(), reg, ttl, now); err != nil {
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

// writeError answers 400 for a FieldError, 404 for an unknown sensor,
// 413 for a body too large, 500 for the rest.
func writeError(w http.ResponseWriter, err error) {
	var fe *FieldError
	var mbe *http.MaxBytesError
	switch {
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
