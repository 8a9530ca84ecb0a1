package live

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/stats"

	"github.com/diperf/diperf/internal/sample"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct{ t time.Time }

func (f *fakeClock) now() time.Time { return f.t }

const base = int64(1_700_000_000) // a whole second, Unix s

func newRun(t *testing.T) (*Run, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Unix(base, 0)}
	return New(Options{Name: "x", Testers: 3, Now: clk.now}), clk
}

func call(startS, endS float64, st sample.Status) sample.Sample {
	return sample.Sample{Start: int64(startS * 1e9), End: int64(endS * 1e9), Status: st, Err: "boom"}
}

func TestSecondsCountCallsByEndAndLoadByOverlap(t *testing.T) {
	r, clk := newRun(t)
	b := float64(base)
	r.Add(0, []sample.Sample{
		call(b+0.5, b+2.5, sample.OK),     // 2 s in flight: 0.5, 1, 0.5
		call(b+1.0, b+1.01, sample.OK),    // 10 ms in second 1
		call(b+1.2, b+1.3, sample.Failed), // 100 ms, failed
		call(b+1.4, b+1.5, sample.Cancelled),
	}, 4, nil)
	var got []Second
	var counts []int64
	r.OnFinal(func(s Second, b *stats.Bucket) { got = append(got, s); counts = append(counts, b.Hist.TotalCount()) })
	clk.t = time.Unix(base+3, 0).Add(Lag)
	r.Tick()
	if len(got) != 3 {
		t.Fatalf("%d seconds final, want 3", len(got))
	}
	want := []struct {
		ok, failed uint64
		load       float64
	}{{0, 0, 0.5}, {1, 1, 1 + 0.01 + 0.1 + 0.1}, {1, 0, 0.5}}
	for i, w := range want {
		s := got[i]
		if s.OK != w.ok || s.Failed != w.failed || abs(s.Load-w.load) > 1e-6 || !s.Final {
			t.Errorf("second %d = %+v, want ok %d failed %d load %.3f", i, s, w.ok, w.failed, w.load)
		}
		if counts[i] != int64(w.ok) {
			t.Errorf("second %d histogram holds %d, want %d", i, counts[i], w.ok)
		}
	}
	if p := got[1].P99Ms; p < 9.9 || p > 10.1 {
		t.Errorf("second 1 p99 = %v ms, want 10", p)
	}
	if p := got[2].P50Ms; p < 1980 || p > 2000 {
		t.Errorf("second 2 p50 = %v ms, want 2000 within the histogram's 1%%", p)
	}
	snap := r.Snapshot(0)
	if snap.Totals.ByClass["ok"] != 2 || snap.Totals.ByClass["failed"] != 1 || snap.Totals.ByClass["cancelled"] != 1 {
		t.Errorf("totals by class = %v", snap.Totals.ByClass)
	}
	if len(snap.Errors) != 1 || snap.Errors[0].Class != "failed" || snap.Errors[0].Recent[0] != "boom" {
		t.Errorf("errors = %+v", snap.Errors)
	}
}

func TestLateSamplesCountButKeepFinalPercentiles(t *testing.T) {
	r, clk := newRun(t)
	b := float64(base)
	r.Add(0, []sample.Sample{call(b, b+0.010, sample.OK)}, 1, nil)
	clk.t = time.Unix(base+1, 0).Add(Lag)
	r.Tick()
	r.Add(0, []sample.Sample{call(b, b+0.5, sample.OK)}, 2, nil)
	s := r.Snapshot(0).Seconds[0]
	if s.OK != 2 || !s.Final || s.P99Ms > 10.1 {
		t.Fatalf("second 0 = %+v: want 2 calls, final, p99 still 10 ms", s)
	}
}

func TestProvisionalSecondsShowTheirFiguresSoFar(t *testing.T) {
	r, _ := newRun(t)
	b := float64(base)
	r.Add(0, []sample.Sample{call(b, b+0.020, sample.OK)}, 1, nil)
	s := r.Snapshot(0).Seconds
	if len(s) != 1 || s[0].Final || s[0].OK != 1 || s[0].P50Ms < 19.8 || s[0].P50Ms > 20.2 {
		t.Fatalf("provisional seconds = %+v", s)
	}
}

func TestTesterStatesFollowEventsAndFailureSticks(t *testing.T) {
	r, _ := newRun(t)
	r.Event("launched", 0, "h:1", "", 1)
	r.Event("admitted", 0, "h:1", "", 2)
	r.Event("started", 0, "h:1", "", 3)
	r.Event("launched", 1, "h:2", "", 1)
	r.Event("started", 1, "h:2", "", 2)
	r.Event("failed", 1, "h:2", "tester exited: killed", 5)
	r.Event("stopped", 1, "h:2", "end", 6)
	r.Event("started", 2, "h:3", "", 2)
	r.Event("stopped", 2, "h:3", "end of test", 7)
	r.Event("started", 2, "h:3", "", 8)
	r.Host(1, "hostB")
	snap := r.Snapshot(0)
	if snap.States[StateRunning] != 1 || snap.States[StateFailed] != 1 || snap.States[StateDone] != 1 {
		t.Fatalf("states = %v", snap.States)
	}
	f := snap.Testers[0]
	if f.Index != 1 || f.State != StateFailed || f.Detail != "tester exited: killed" || f.Host != "hostB" || f.ChangedNs != 5 {
		t.Fatalf("first row = %+v, want the failed tester 1 with its reason", f)
	}
}

func TestAWildClockCannotGrowTheRows(t *testing.T) {
	r, _ := newRun(t)
	r.Add(0, []sample.Sample{{Start: 0, End: 1 << 62, Status: sample.OK}}, 1, nil)
	if n := len(r.Snapshot(0).Seconds); n > int(maxAhead/time.Second)+2 {
		t.Fatalf("%d rows after one call with a wild clock", n)
	}
}

func TestRecentErrorsKeepTheLatestDistinctMessages(t *testing.T) {
	var e errClass
	for _, m := range []string{"a", "b", "a", "c", "d", "e", "f"} {
		e.add(m)
	}
	want := []string{"f", "e", "d", "c", "a"}
	if e.count != 7 || len(e.recent) != len(want) {
		t.Fatalf("count %d recent %v", e.count, e.recent)
	}
	for i := range want {
		if e.recent[i] != want[i] {
			t.Fatalf("recent = %v, want %v", e.recent, want)
		}
	}
}

func TestNilRunIgnoresEverything(t *testing.T) {
	var r *Run
	r.Add(0, []sample.Sample{call(1, 2, sample.OK)}, 1, nil)
	r.Event("started", 0, "", "", 0)
	r.Tick()
	r.End("")
	if s := r.Snapshot(0); s.State != "" {
		t.Fatal("a nil run has a state")
	}
}
