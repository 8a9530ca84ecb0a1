package search

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/stats"
)

// second is a second of n calls of ms each, offered rate.
func second(n int, ms float64, rate float64) Second {
	s := Second{RT: stats.NewBucket(), OK: uint64(n), Offered: rate}
	s.RT.AddRTs(int64(ms*1e6), n)
	return s
}

// TestWarmupLeftOut: slow seconds while the throughput has not settled
// (above the offered rate: a backlog served) are left out; a step whose
// slow seconds were measured would fail.
func TestWarmupLeftOut(t *testing.T) {
	cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, "p99_ms < 15"), Start: 1})
	st := newStep(&cfg, 1, 500, 30)
	for _, s := range []Second{second(900, 200, 500), second(800, 100, 500), second(700, 50, 500)} {
		if st.Add(s) {
			t.Fatalf("decided during the warm-up: %+v", st.Record())
		}
	}
	for !st.Add(second(500, 10, 500)) {
	}
	r := st.Record()
	if r.Decision != Meets || r.Weak || r.WarmupS != 3 || !r.Settled || r.Measured%500 != 0 {
		t.Errorf("step %+v: want meets after a 3 s warm-up", r)
	}
}

// TestRefusedSeconds: a second whose histogram holds more calls than it
// had, or of another geometry, is not measured, and counted.
func TestRefusedSeconds(t *testing.T) {
	cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, "p99_ms < 15"), Start: 1})
	st := newStep(&cfg, 1, 100, 30)
	bad := second(100, 500, 100)
	bad.OK = 10
	other := Second{OK: 100, RT: &stats.Bucket{Hist: hdr.New(1, 1000, 3)}, Offered: 100}
	other.RT.AddRTs(900_000, 100)
	for _, s := range []Second{second(100, 5, 100), second(100, 5, 100), bad, other} {
		st.Add(s)
	}
	for !st.Add(second(100, 5, 100)) {
	}
	if r := st.Record(); r.Refused != 2 || r.Decision != Meets {
		t.Errorf("step %+v: want 2 seconds refused and meets", r)
	}
}

// TestMeanSLO: the mean by a t bound over the per-second means.
func TestMeanSLO(t *testing.T) {
	for _, c := range []struct {
		slo, want string
	}{{"mean_ms < 12", Meets}, {"mean_ms < 8", Fails}, {"mean_ms <= 10.5", Meets}} {
		cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, c.slo), Start: 1})
		st := newStep(&cfg, 1, 100, 30)
		for i := 0; !st.Add(second(100, 9+float64(i%3), 100)); i++ {
		}
		if r := st.Record(); r.Decision != c.want || r.Weak {
			t.Errorf("%s: %s (%s), want %s", c.slo, r.Decision, r.Why, c.want)
		}
	}
}

// TestParseSLO refuses what no load can meet.
func TestParseSLO(t *testing.T) {
	for _, bad := range []string{"p99_ms > 10", "p100_ms < 10", "throughput < 5", "error_rate < 0%", "error_rate < 100%",
		"p99_ms < 0", "p99_ms < NaN", "mean_ms < 1e9", "bogus"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := ParseSLOs([]string{"p99_ms < 10", "p99_ms < 20"}); err == nil {
		t.Error("two objectives on p99_ms: no error")
	}
	s, err := ParseSLO(" p99.9_ms < 250 ")
	if err != nil || s.Text != "p99.9_ms < 250" || s.share() < 0.000999 || s.share() > 0.001001 {
		t.Errorf("p99.9_ms: %+v %v", s, err)
	}
}

// TestRecordsOut: search.csv read by header and the search block's JSON,
// with null for what is not known.
func TestRecordsOut(t *testing.T) {
	res, err := runSearch(Config{SLOs: mustSLOs(t, "p99_ms < 15", "error_rate < 1%"), MaxRate: 200}, newSim(4, 0.010, false, 1))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, res.Steps); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != len(res.Steps)+1 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	last := rows[len(rows)-1]
	if last[col["load"]] != "200" || last[col["decision"]] != Meets || last[col["slo2"]] != "error_rate < 1%" || last[col["slo1_decision"]] != Meets {
		t.Errorf("last row %v", last)
	}
	j, _ := json.Marshal(res)
	for _, want := range []string{`"verdict":"holds-at-max"`, `"capacity":200`, `"interval":[200,null]`, `"breaks_at":null`} {
		if !strings.Contains(string(j), want) {
			t.Errorf("JSON lacks %s: %s", want, j[:200])
		}
	}
}

// TestNoData: a step whose every second is refused decides nothing, and
// the search stops with no-data rather than take it for a fail.
func TestNoData(t *testing.T) {
	s, err := New(Config{SLOs: mustSLOs(t, "p99_ms < 15"), MaxRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	st := s.NewStep(s.First())
	bad := second(10, 5, 100)
	bad.OK = 1
	for !st.Add(bad) {
	}
	if _, done := s.Next(st.Record()); !done || s.Result().Verdict != VerdictNoData || s.Result().BreaksAt != nil {
		t.Errorf("result %+v, want no-data and no load failed", s.Result())
	}
}

// TestWarmupClosed: with no offered rate (a closed model) the warm-up
// ends when the calls a second are steady.
func TestWarmupClosed(t *testing.T) {
	cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, "p99_ms < 15"), Start: 1})
	st := newStep(&cfg, 1, 8, 30)
	for _, n := range []int{50, 80, 100} {
		st.Add(second(n, 40, 0))
	}
	for !st.Add(second(100, 5, 0)) {
	}
	if r := st.Record(); r.WarmupS != 3 || r.Decision != Meets {
		t.Errorf("step %+v: want 3 s of warm-up, then meets", r)
	}
}

// TestWeakAtLimit: a share at the objective itself, in the test's
// indifference zone, is decided at the step's limit by the point
// estimate, marked weak.
func TestWeakAtLimit(t *testing.T) {
	for _, c := range []struct {
		failed uint64
		want   string
	}{{9, Meets}, {10, Fails}} {
		cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, "error_rate < 10%"), Start: 1, StepLimit: 3 * time.Second})
		st := newStep(&cfg, 1, 100, secs(cfg.StepLimit))
		s := second(int(100-c.failed), 5, 100)
		s.Failed = c.failed
		for !st.Add(s) {
		}
		r := st.Record()
		if r.Decision != c.want || !r.Weak || r.SLOs[0].Of != 300 || !strings.Contains(r.SLOs[0].Why, "weak") {
			t.Errorf("%d%% failed: step %+v: want a weak %s after 3 s measured", c.failed, r, c.want)
		}
	}
}

// TestOtherLoadsSeconds: the live view's seconds are final a few seconds
// after they end, so the first seconds a step is fed may be the last
// step's: they are not the step's, and not measured.
func TestOtherLoadsSeconds(t *testing.T) {
	cfg := mustDefaults(t, Config{SLOs: mustSLOs(t, "p99_ms < 15"), Start: 1})
	st := newStep(&cfg, 2, 400, 30)
	for range 5 {
		st.Add(second(200, 5, 200))
	}
	for !st.Add(second(400, 50, 400)) {
	}
	if r := st.Record(); r.Decision != Fails || r.Refused != 5 || r.WarmupS != 2 {
		t.Errorf("step %+v: want 5 seconds of the last load refused, then fails", r)
	}
}
