package directory

import (
	"context"
	"io"
	"net/http"
)

// answerProbe is POST /v1/probes/{id}/answer: the probe's source sensor
// (signed by its key, when its name is bound to one) gives its result,
// stored like any other, or why it did not run it. A probe not running
// (pending, answered, expired) refuses it; a result not of the probe's
// pair and kind is refused.
func (s *Server) answerProbe(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var a ProbeAnswer
	err := checkToken("id", id, MaxShort)
	if err == nil {
		err = Decode(r.Body, &a)
	}
	var p Probe
	if err == nil {
		p, err = s.probes.startAnswer(id, s.now())
	}
	if err == nil {
		err = s.authorize(r, "src", p.Src)
		if err == nil {
			p, err = s.storeAnswer(r.Context(), p, a)
		} else {
			s.probes.finish(id, nil, "", s.now()) // running again: its own sensor may still answer
		}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// storeAnswer stores a's result for p and ends p done, or ends it failed
// with a's reason; a result the directory does not take leaves p running.
func (s *Server) storeAnswer(ctx context.Context, p Probe, a ProbeAnswer) (Probe, error) {
	if a.Result == nil {
		return s.probes.finish(p.ID, nil, "sensor "+p.Src+": "+a.Reason, s.now()), nil
	}
	res := *a.Result
	err := samePair(p, res)
	if err == nil {
		err = s.admitPair(ctx, res.Src, res.Dst, "measured_at", res.MeasuredAt)
	}
	if err == nil {
		res.ID, err = s.store.AddResult(ctx, res)
	}
	if err != nil {
		s.probes.finish(p.ID, nil, "", s.now())
		return Probe{}, err
	}
	return s.probes.finish(p.ID, &res, "", s.now()), nil
}

// samePair refuses a result of another pair or kind than p's.
func samePair(p Probe, r Result) error {
	switch {
	case r.Src != p.Src:
		return fieldErr("result.src", "is %q; the probe's is %q", clip(r.Src), p.Src)
	case r.Dst != p.Dst:
		return fieldErr("result.dst", "is %q; the probe's is %q", clip(r.Dst), p.Dst)
	case r.Kind != p.Kind:
		return fieldErr("result.kind", "is %q; the probe's is %q", clip(r.Kind), p.Kind)
	}
	return nil
}

// write writes the probes' counts in the Prometheus text format: those
// open now, and those ended by their final state.
func (b *probeBook) write(w io.Writer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	open := &metricFamily{name: "diperf_directory_probes_open", typ: "gauge",
		help: "On-demand tests (probes) pending or running."}
	open.add(`state="open"`, float64(b.pending))
	ended := &metricFamily{name: "diperf_directory_probes_ended_total", typ: "counter",
		help: "On-demand tests (probes) ended, by final state (done, failed, expired)."}
	for _, st := range []string{ProbeDone, ProbeFailed, ProbeExpired} {
		ended.add(`state="`+st+`"`, float64(b.ended[st]))
	}
	open.write(w)
	ended.write(w)
}
