package e2e

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
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
// dnsRate answers, but for those a tester read late (a stall of the busy
// machine moves them to the next quantum) and those the testers never
// sent (a stall past max_lateness). The plateau's mean X* is then
// dnsRate within [-5%, +1%]: a move takes from one plateau quantum what
// it gives the next, only an under-fed quantum lowers it. Below the
// knee every query is answered, and the clients' successful calls agree
// with unbound's own count of NOERROR answers per window, cumulatively
// and in total.
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
	dnsQuanta(t, dir, s.OriginNs)
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

// dnsQuanta holds the calls below the knee to the limiter: below
// 0.8·dnsRate offered every query is answered, so of the calls intended
// in those quanta at least 98% succeed (a reply is missed only when a
// stall of the machine outlasts the 1 s timeout, or bunches a stalled
// tester's late calls into one second past the limit). No bound is put
// on single seconds above the knee: unbound stamps the queries of one
// read batch with the time the batch began, so on a busy machine a query
// sent after a second's boundary can count in the second before (201
// calls sent and answered within one second were seen under stress-ng).
func dnsQuanta(t *testing.T, dir string, origin int64) {
	t.Helper()
	q := readCSV(t, filepath.Join(dir, "quanta.csv"), "t_s", "offered_per_s")
	light := map[int64]bool{}
	for _, r := range q.rows {
		if o := r.float(t, "offered_per_s"); o > 0 && o <= 0.8*dnsRate {
			light[int64(r.int(t, "t_s"))] = true
		}
	}
	const second = int64(time.Second)
	var intended, answered int
	err := rundir.ScanRows(dir, rundir.Samples, func(rows []rundir.Row) error {
		for _, r := range rows {
			if r.IntendedNs > origin && light[(r.IntendedNs-origin)/second] {
				intended++
				if r.Status == "ok" {
					answered++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("samples.parquet: %v", err)
	}
	if len(light) < 4 || float64(answered) < 0.98*float64(intended) {
		t.Errorf("below 0.8x capacity (%d quanta): %d of %d calls answered: want at least 98%% in at least 4 quanta",
			len(light), answered, intended)
	}
}
