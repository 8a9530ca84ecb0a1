package e2e

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// dnsRate is the capacity examples/cases/dns/run.sh configures:
// unbound's ip-ratelimit, in answered queries per second per client
// address (every tester sends from 127.0.0.1).
const dnsRate = 200

// TestCaseDNS runs the dns case shortened: the built-in udp client
// sends a real query to a private unbound limited to dnsRate answers a
// second, at an arrival rate climbing to twice that. unbound's limiter
// answers the first dnsRate queries of each second of the clock and
// drops the rest; the analysis's quanta are whole seconds of the same
// clock (the origin is a whole second), so a saturated quantum holds
// exactly dnsRate answers, give or take a call whose reply crossed a
// second's boundary, and a quantum the testers under-fed (a stall of
// the busy machine past max_lateness) holds fewer, never more. The knee
// is then at dnsRate within [-5%, +1%]; below it every query is
// answered; and the clients' successful calls agree with unbound's own
// count of NOERROR answers per window, cumulatively and in total.
func TestCaseDNS(t *testing.T) {
	t.Parallel()
	dir, out := runCase(t, "dns")
	s := readSummary(t, dir)
	sat := s.Saturation
	if sat.Verdict != analyze.VerdictSaturated || sat.Throughput < 0.95*dnsRate || sat.Throughput > 1.01*dnsRate {
		t.Errorf("saturation %+v: want saturated at %d calls/s (-5%%, +1%%)\n%s", sat, dnsRate, out)
	}
	if s.Samples.OK == 0 || s.Errors["no_reply"] == 0 || s.Samples.Failed != s.Errors["no_reply"] {
		t.Errorf("samples %+v, errors %v: want answers, and past the knee no_reply only (a reply failing bytes_hex is failed)",
			s.Samples, s.Errors)
	}
	dnsQuanta(t, dir)
	v := caseValidate(t, dir, "unbound", "answered", 1, 100)
	var server, clients float64
	near := 0
	for _, iv := range v.Intervals {
		server, clients = server+iv.Server, clients+float64(iv.Clients)
	}
	if n := len(v.Intervals); n > 0 {
		near = v.Intervals[0].NearFrom + v.Intervals[n-1].NearTo
	}
	if v.Calls != s.Samples.OK || math.Abs(server-clients) > float64(near)+0.01*server {
		t.Errorf("totals: unbound answered %.0f, the clients got %.0f of %d successful calls (%d near the ends): want all of them, within 1%%",
			server, clients, s.Samples.OK, near)
	}
}

// dnsQuanta holds quanta.csv to the limiter: no quantum above dnsRate
// (but for a reply or two that crossed a second's boundary), and below
// 0.8·dnsRate offered, every query answered (but for 2% whose replies a
// stall of the machine made later than the call's timeout).
func dnsQuanta(t *testing.T, dir string) {
	t.Helper()
	q := readCSV(t, filepath.Join(dir, "quanta.csv"), "t_s", "ok", "offered_per_s", "achieved_per_s")
	var below, answered float64
	light := 0
	for _, r := range q.rows {
		if ok := r.int(t, "ok"); ok > dnsRate+2 {
			t.Errorf("quantum at %s s: %d answers, past the limit of %d a second", r.str(t, "t_s"), ok, dnsRate)
		}
		if o := r.float(t, "offered_per_s"); o > 0 && o <= 0.8*dnsRate {
			light++
			below += r.float(t, "achieved_per_s")
			answered += float64(r.int(t, "ok"))
		}
	}
	if light < 4 || answered < 0.98*below {
		t.Errorf("below 0.8x capacity (%d quanta): %.0f of %.0f calls answered: want at least 98%% in at least 4 quanta", light, answered, below)
	}
}
