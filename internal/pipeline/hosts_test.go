package pipeline

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
)

// siteTester is one tester of hostsRunDir: its host and site, and its
// back-to-back calls (count, each of ms), the last failed of them failed.
type siteTester struct {
	host, site      string
	calls, ms, fail int
}

// siteTesters are hostsRunDir's testers: host a (site north) two, host b
// (site north) two, host c (no site) one, all over the same 8 s.
var siteTesters = []siteTester{
	{"a", "north", 80, 100, 0}, {"a", "north", 40, 200, 0},
	{"b", "north", 20, 400, 0}, {"b", "north", 10, 800, 2},
	{"c", "", 8, 1000, 0},
}

// hostsRunDir writes a run directory of siteTesters from t0 + 1 s for
// 8 s; the tester at bad (if any) has a site no name may hold.
func hostsRunDir(t *testing.T, bad int, badSite string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	e := experiment.Default()
	e.Client.Exec = []string{"true"}
	e.Schedule.TesterDuration = experiment.Duration(8 * time.Second)
	y, err := e.Marshal()
	if err == nil {
		err = rundir.Create(dir)
	}
	if err == nil {
		err = rundir.WriteBytes(dir, rundir.Experiment, y)
	}
	if err != nil {
		t.Fatal(err)
	}
	var recs []*rundir.TesterRecord
	var rows []rundir.Row
	start := t0 + 1e9
	for i, st := range siteTesters {
		id := st.host + ":" + strconv.Itoa(i)
		rec := &rundir.TesterRecord{Slot: i, ID: id, Host: st.host, Site: st.site, LaunchNs: t0, StartNs: start,
			StopNs: start + 8e9, Sent: uint64(st.calls), Received: uint64(st.calls),
			Syncs: []clock.Record{{LocalNs: start, RTTNs: 1e5, BoundNs: 5e4}}}
		if i == bad {
			rec.Site = badSite
		}
		recs = append(recs, rec)
		d := int64(st.ms) * 1e6
		for k := range int64(st.calls) {
			s := start + k*d
			status := "ok"
			if int(k) >= st.calls-st.fail {
				status = "failed"
			}
			rows = append(rows, rundir.Row{Tester: int32(i), TesterID: id, Seq: k + 1, StartNs: s, EndNs: s + d, LocalStartNs: s, Status: status})
		}
	}
	err = rundir.WriteTesters(dir, recs)
	if err == nil {
		err = rundir.WriteSampleRows(dir, func(put func([]rundir.Row) error) error { return put(rows) })
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// readByHeader reads dir's CSV file name: one map of column → cell per
// row.
func readByHeader(t *testing.T, dir, name string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(rundir.Path(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %d records, %v", name, len(recs), err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// expectedGroup is what a host or site's row must say, computed here from
// siteTesters alone: counts, the nearest-rank percentiles of the exact
// response times, and Jain's index by its definition.
type expectedGroup struct {
	testers, ok, failed     int
	median, mean, p99, perS float64
	jain                    float64
	perTester               float64 // ok per tester over the 8 s (all testers run through the peak window)
}

func expectGroup(keep func(siteTester) bool) expectedGroup {
	var e expectedGroup
	var rts []float64
	var sum, sq float64
	for _, st := range siteTesters {
		if !keep(st) {
			continue
		}
		ok := st.calls - st.fail
		e.testers, e.ok, e.failed = e.testers+1, e.ok+ok, e.failed+st.fail
		for range ok {
			rts = append(rts, float64(st.ms))
		}
		sum, sq = sum+float64(ok), sq+float64(ok*ok)
	}
	slices.Sort(rts)
	rank := func(p float64) float64 { return rts[int(math.Ceil(p/100*float64(len(rts))))-1] }
	for _, v := range rts {
		e.mean += v / float64(len(rts))
	}
	e.median, e.p99, e.perS = rank(50), rank(99), float64(e.ok)/8
	e.jain = sum * sum / (float64(e.testers) * sq)
	e.perTester = float64(e.ok) / float64(e.testers)
	return e
}

// near reports whether got (a CSV cell) is within rel of want.
func near(got string, want, rel float64) bool {
	v, err := strconv.ParseFloat(got, 64)
	return err == nil && math.Abs(v-want) <= rel*math.Abs(want)+1e-4
}

// checkGroup compares a row of hosts.csv with e.
func checkGroup(t *testing.T, row map[string]string, e expectedGroup) {
	t.Helper()
	name := row["level"] + " " + row["name"]
	for col, want := range map[string]int{"testers": e.testers, "ok": e.ok, "failed": e.failed, "peak_testers": e.testers, "peak_ok": e.ok} {
		if row[col] != strconv.Itoa(want) {
			t.Errorf("%s: %s = %q, want %d", name, col, row[col], want)
		}
	}
	// The histograms keep 2 significant digits: percentiles within 1%.
	for col, want := range map[string]float64{"rt_median_ms": e.median, "rt_p99_ms": e.p99} {
		if !near(row[col], want, 0.01) {
			t.Errorf("%s: %s = %q, want %v", name, col, row[col], want)
		}
	}
	for col, want := range map[string]float64{"rt_mean_ms": e.mean, "peak_calls_per_s": e.perS, "calls_per_s": e.perS,
		"run_s": 8, "jain_testers": e.jain} {
		if !near(row[col], want, 1e-4) {
			t.Errorf("%s: %s = %q, want %v", name, col, row[col], want)
		}
	}
}

// Derive writes hosts.csv from testers.csv's sites: per host and per site
// the testers, calls, throughput, response times and Jain's index, as
// computed independently from the same calls; clients.csv carries each
// tester's site and summary.json the hosts block.
func TestDeriveHostsAndSites(t *testing.T) {
	dir := hostsRunDir(t, -1, "")
	if _, err := Derive(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	rows := readByHeader(t, dir, rundir.Hosts)
	var got []string
	for _, r := range rows {
		got = append(got, r["level"]+":"+r["name"]+":"+r["site"])
	}
	if want := []string{"host:a:north", "host:b:north", "host:c:", "site:north:north"}; !slices.Equal(got, want) {
		t.Fatalf("hosts.csv rows %v, want %v", got, want)
	}
	ea := expectGroup(func(s siteTester) bool { return s.host == "a" })
	eb := expectGroup(func(s siteTester) bool { return s.host == "b" })
	ec := expectGroup(func(s siteTester) bool { return s.host == "c" })
	en := expectGroup(func(s siteTester) bool { return s.site == "north" })
	// By hand: host a's testers made 80 and 40 calls, b's 20 and 8 ok.
	if math.Abs(ea.jain-0.9) > 1e-12 || math.Abs(eb.jain-784.0/928) > 1e-12 {
		t.Fatalf("the test's own Jain is wrong: %v %v", ea.jain, eb.jain)
	}
	for i, e := range []expectedGroup{ea, eb, ec, en} {
		checkGroup(t, rows[i], e)
	}
	// Across hosts: calls per tester 60 and 14 in site north; with c's 8, the run's.
	if !near(rows[3]["jain_hosts"], 74.0*74/(2*(60*60+14*14)), 1e-4) || rows[3]["hosts"] != "2" {
		t.Errorf("site north: jain_hosts %q, hosts %q; want %v over 2 hosts", rows[3]["jain_hosts"], rows[3]["hosts"], 74.0*74/(2*(60*60+14*14)))
	}
	if rows[0]["jain_hosts"] != "" {
		t.Errorf("a host's row has jain_hosts %q", rows[0]["jain_hosts"])
	}
	s, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Hosts; h == nil || h.Hosts != 3 || h.Sites != 1 || math.Abs(h.FairnessAcrossHosts-82.0*82/(3*(3600+196+64))) > 1e-9 {
		t.Errorf("summary.json hosts %+v, want 3 hosts, 1 site, fairness %v", h, 82.0*82/(3*(3600+196+64)))
	}
	for i, r := range readByHeader(t, dir, rundir.Clients) {
		if r["site"] != siteTesters[i].site {
			t.Errorf("clients.csv row %d: site %q, want %q", i, r["site"], siteTesters[i].site)
		}
	}
}

// A site in testers.csv no name may hold (too long, a control character,
// a space, not UTF-8) is refused: the tester is analyzed with no site,
// and the analysis says so.
func TestDeriveRefusesBadSites(t *testing.T) {
	for _, bad := range []string{strings.Repeat("x", rundir.MaxSite+1), "north\x1b[2J", "two words", "\xff\xfe"} {
		dir := hostsRunDir(t, 4, bad)
		var progress bytes.Buffer
		if _, err := Derive(dir, Options{Progress: &progress}); err != nil {
			t.Fatalf("site %q: %v", bad, err)
		}
		if !strings.Contains(progress.String(), "the site of 1 testers was refused") {
			t.Errorf("site %q: progress says %q", bad, progress.String())
		}
		for _, r := range readByHeader(t, dir, rundir.Hosts) {
			if r["name"] == "c" && r["site"] != "" || r["level"] == "site" && r["name"] != "north" {
				t.Errorf("site %q: hosts.csv row %v", bad, r)
			}
		}
		if got := readByHeader(t, dir, rundir.Clients)[4]["site"]; got != "" {
			t.Errorf("site %q: clients.csv has %q", bad, got)
		}
	}
}
