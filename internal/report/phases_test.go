package report

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// httpRun is smallResult measured by an HTTP client over kept-alive
// connections: connect only on 50 calls, no lookup or handshake, first
// byte in every call, 2 + i/2 ms on average in quantum i, none measured
// in quantum 5.
func httpRun() *analyze.Result {
	r := smallResult()
	r.Summary.HTTPPhases = &analyze.HTTPPhases{
		Connect:   analyze.PhaseStats{N: 50, Mean: 0.25, P50: 0.2, P99: 0.875, Max: 1.5},
		FirstByte: analyze.PhaseStats{N: 1200, Mean: 4.5, P50: 4.25, P99: 7.5, Max: 9},
	}
	for i := range r.Quanta {
		p := &analyze.PhaseQuantum{FirstByteN: 100, FirstByteMs: 2 + float64(i)/2}
		if i == 5 {
			p = &analyze.PhaseQuantum{}
		}
		r.Quanta[i].Phases = p
	}
	return r
}

// TestFactsHTTPPhases checks that a run whose calls measured HTTP phases
// has a summary line giving mean, p50 and p99 of each phase measured, and
// a run without phases none.
func TestFactsHTTPPhases(t *testing.T) {
	t.Parallel()
	r := httpRun()
	fs, _ := facts(&r.Summary)
	last := fs[len(fs)-1]
	want := "connect 0.25 / 0.2 / 0.875 (50 calls) · first byte 4.5 / 4.25 / 7.5 (1200 calls)"
	if last.Label != "HTTP phases, mean / p50 / p99 (ms)" || last.Value != want {
		t.Errorf("last fact %+v, want the HTTP phases: %q", last, want)
	}
	page := render(t, r)
	if !strings.Contains(page, "<th class=\"l\">HTTP phases, mean / p50 / p99 (ms)</th><td class=\"l\">"+want) {
		t.Error("the page lacks the HTTP phases line")
	}
	for _, s := range []*analyze.Summary{&smallResult().Summary, {HTTPPhases: &analyze.HTTPPhases{}}} {
		fs, _ := facts(s)
		for _, f := range fs {
			if strings.HasPrefix(f.Label, "HTTP phases") {
				t.Errorf("a run with phases %+v has an HTTP phases line", s.HTTPPhases)
			}
		}
	}
}

// TestTimelineFirstByte draws graph (a) of a run with phases: the time to
// first byte is on the left axis, averaged per quantum, with a gap where
// no call measured it; the caption says what it is; without phases graph
// (a) has no such line.
func TestTimelineFirstByte(t *testing.T) {
	t.Parallel()
	r := httpRun()
	c := timelineChart(r)
	_, legendH := c.legendLayout()
	f := c.frame(legendH)
	out := c.svg()
	checkXML(t, out)
	xs, ys, tag := pathPoints(t, out, colFirstByte, "1")
	if len(xs) != len(r.Quanta)-1 {
		t.Fatalf("first byte has %d points, want one per quantum but the one without: %d", len(xs), len(r.Quanta)-1)
	}
	k := 0
	for i, q := range r.Quanta {
		if i == 5 {
			continue
		}
		if !near(xs[k], f.x.at(q.T)) || !near(ys[k], f.y.at(q.Phases.FirstByteMs)) {
			t.Errorf("first byte point %d at (%.1f, %.1f), want (%.1f, %.1f)", i, xs[k], ys[k],
				f.x.at(q.T), f.y.at(q.Phases.FirstByteMs))
		}
		k++
	}
	if strings.Count(tag, "M") != 2 {
		t.Errorf("first byte line %q does not break at quantum 5", tag)
	}
	if l := legendRE.FindStringSubmatch(out); l == nil || !strings.Contains(l[1], "time to first byte (left axis)") {
		t.Error("graph (a) legend lacks the time to first byte")
	}
	if !strings.Contains(timelineCaption(r), "Time to first byte (left axis") {
		t.Error("graph (a) caption does not say what the time to first byte is")
	}
	plain := smallResult()
	if strings.Contains(timelineChart(plain).svg(), colFirstByte) || strings.Contains(timelineCaption(plain), "first byte") {
		t.Error("graph (a) of a run without phases draws or names the time to first byte")
	}
}
