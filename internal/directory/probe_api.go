package directory

import (
	"net/http"
	"strconv"
	"time"
)

// probeRoutes adds the on-demand tests' routes to mux.
func (s *Server) probeRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/probes", s.requestProbe)
	mux.HandleFunc("GET /v1/probes/{id}", s.getProbe)
	mux.HandleFunc("POST /v1/probes/{id}/answer", s.answerProbe)
	mux.HandleFunc("POST /v1/sensors/{name}/probes", s.claimProbes)
}

// requestProbe is POST /v1/probes: a holder of the token asks sensor src
// to test dst now. Both must be live; src must be asking for its probes;
// the requester (its address) within its bounds.
func (s *Server) requestProbe(w http.ResponseWriter, r *http.Request) {
	var req ProbeRequest
	if err := Decode(r.Body, &req); err != nil {
		writeError(w, err)
		return
	}
	requester, now := sourceOf(r.RemoteAddr), s.now()
	if err := s.probes.rate(requester, now); err != nil {
		writeError(w, err)
		return
	}
	if err := s.probePair(r, req, now); err != nil {
		writeError(w, err)
		return
	}
	p, err := s.probes.add(req, requester, now)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, p)
}

// probePair checks that src and dst are live sensors and that src asks
// for its probes.
func (s *Server) probePair(r *http.Request, req ProbeRequest, now time.Time) error {
	for _, p := range []struct{ field, name string }{{"src", req.Src}, {"dst", req.Dst}} {
		sn, err := s.sensorNamed(r, p.name, now)
		switch {
		case err != nil:
			return err
		case sn == nil:
			return refusal(http.StatusNotFound, p.field, "%q is not a registered sensor", clip(p.name))
		case sn.State != StateLive:
			return refusal(http.StatusConflict, p.field, "sensor %s is stale: it stopped renewing its registration at %s",
				sn.Name, sn.RenewedAt.Format(time.RFC3339))
		}
	}
	if !s.probes.isPolling(req.Src, now) {
		return refusal(http.StatusConflict, "src", "sensor %s does not ask the directory for on-demand tests "+
			"(a diperf older than the probes, or it is starting, or it lost the directory)", req.Src)
	}
	return nil
}

// sensorNamed is the registered sensor name, nil if there is none.
func (s *Server) sensorNamed(r *http.Request, name string, now time.Time) (*Sensor, error) {
	return s.store.sensorNamed(r.Context(), name, now)
}

// getProbe is GET /v1/probes/{id}.
func (s *Server) getProbe(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := checkToken("id", id, MaxShort); err != nil {
		writeError(w, err)
		return
	}
	p, ok := s.probes.get(id, s.now())
	if !ok {
		writeError(w, refusal(http.StatusNotFound, "id", "no probe %s (never made, ended over %v ago, or the directory restarted)", id, ProbeKept))
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// claimProbes is POST /v1/sensors/{name}/probes?wait=SECONDS: sensor
// name's pending probes, claimed (running), as soon as there are some
// within wait (at most MaxProbeWait), each with its dst's address. It
// must be signed by the key name is bound to, when it is bound.
func (s *Server) claimProbes(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	wait, err := probeWait(r, name)
	if err == nil {
		err = s.authorize(r, "name", name)
	}
	if err == nil {
		var known bool
		if known, err = s.store.Registered(r.Context(), name); err == nil && !known {
			err = ErrNotRegistered
		}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	out := s.withAddresses(r, s.probes.poll(r.Context(), name, wait, s.now))
	writeJSON(w, http.StatusOK, out)
}

// probeWait is a poll's name checked and its wait (0 to MaxProbeWait).
func probeWait(r *http.Request, name string) (time.Duration, error) {
	if err := checkToken("name", name, MaxName); err != nil {
		return 0, err
	}
	q := r.URL.Query().Get("wait")
	if q == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(q, 64)
	if err != nil || !(v >= 0 && v <= MaxProbeWait.Seconds()) {
		return 0, fieldErr("wait", "is %q; want seconds from 0 to %g", clip(q), MaxProbeWait.Seconds())
	}
	return time.Duration(v * float64(time.Second)), nil
}

// withAddresses sets each claimed probe's DstAddr; one whose dst is no
// longer live fails, and is left out.
func (s *Server) withAddresses(r *http.Request, ps []Probe) []Probe {
	out := []Probe{}
	for _, p := range ps {
		sn, err := s.sensorNamed(r, p.Dst, s.now())
		switch {
		case err != nil:
			s.probes.finish(p.ID, nil, "the directory could not read "+p.Dst+"'s address: "+err.Error(), s.now())
		case sn == nil || sn.State != StateLive:
			s.probes.finish(p.ID, nil, p.Dst+" is no longer a live sensor", s.now())
		default:
			p.DstAddr = sn.Address
			out = append(out, p)
		}
	}
	return out
}
