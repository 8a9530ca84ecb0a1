package threshold

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// oneBucketCalls are the calls of each second of the run the three
// views are fed: in the last one, the p99 is the largest response time.
var oneBucketCalls = []int{700, 700, 700, 40}

// oneBucketSeconds is the run's length in seconds.
const oneBucketSeconds = 4

// oneBucketRun is a closed-model run of one tester from Unix second base:
// response times log-normal around 8 ms to the nanosecond (so that
// rounding to µs would show), 1% failed and 0.5% cancelled, each call
// ending in its second (after its first half).
func oneBucketRun(base int64) []sample.Sample {
	rng := rand.New(rand.NewPCG(25, 26))
	var out []sample.Sample
	for s := range int64(oneBucketSeconds) {
		for i := range oneBucketCalls[s] {
			d := int64(8e6 * math.Exp(0.6*rng.NormFloat64()))
			d = min(d, 400_000_000+rng.Int64N(1000))
			end := (base+s)*1e9 + 500_000_000 + int64(i)*500_000 + rng.Int64N(1000)
			st := sample.OK
			switch x := rng.IntN(200); {
			case x < 2:
				st = sample.Failed
			case x < 3:
				st = sample.Cancelled
			}
			out = append(out, sample.Sample{Start: end - d, End: end, Status: st})
		}
	}
	return out
}

// view is one second's (or the run's) figures as one view shows them.
type view struct {
	ok, failed     uint64
	p50, p99, mean float64
}

// The dashboard's seconds (live), the live thresholds' windows
// (threshold) and the report's quanta and summary (analyze) read one set
// of calls through stats.Bucket: their counts, means and percentiles are
// equal, to the bit.
func TestOneBucketThreeViews(t *testing.T) {
	t.Parallel()
	const base = 1_700_000_000
	calls := oneBucketRun(base)
	dash, thr, dashTotalP99, thrRunP99 := liveViews(t, base, calls)
	res := reportView(t, base, calls)
	if len(res.Quanta) != oneBucketSeconds || len(dash) != oneBucketSeconds || len(thr) != oneBucketSeconds {
		t.Fatalf("%d quanta, %d dashboard seconds, %d threshold seconds; want %d each", len(res.Quanta), len(dash), len(thr), oneBucketSeconds)
	}
	failed := 0
	for i, q := range res.Quanta {
		rep := view{uint64(q.OK), uint64(q.Failed), q.RT.Median, q.RT.P99, q.RT.Mean}
		if dash[i] != rep || thr[i] != rep {
			t.Errorf("second %d: report %+v, dashboard %+v, live threshold %+v; want them equal", i, rep, dash[i], thr[i])
		}
		if failed += q.Failed; rep.ok == 0 || rep.p99 <= rep.p50 {
			t.Errorf("second %d: report %+v; want successful calls and a spread", i, rep)
		}
	}
	if failed == 0 {
		t.Error("no failed call in the run: the counts of failures are not compared")
	}
	whole := res.Summary.ResponseTimeMs.P99
	if dashTotalP99 != whole || thrRunP99 != whole {
		t.Errorf("whole run p99: report %v, dashboard %v, live threshold %v; want them equal", whole, dashTotalP99, thrRunP99)
	}
}

// liveViews feeds calls to the controller's live aggregates (as one batch
// from one tester) and, second by second as they become final, to live
// thresholds that always fail so that they say what they observed. It
// returns the dashboard's seconds and totals, and the thresholds' seconds
// and whole-run p99.
func liveViews(t *testing.T, base int64, calls []sample.Sample) (dash, thr []view, dashTotalP99, thrRunP99 float64) {
	t.Helper()
	now := time.Unix(base, 0)
	r := live.New(live.Options{Name: "one", Testers: 1, Now: func() time.Time { return now }})
	l, err := NewLive([]experiment.Threshold{
		{Check: "p50_ms > 1000000", Over: "last 1s", Abort: true},
		{Check: "p99_ms > 1000000", Over: "last 1s", Abort: true},
		{Check: "mean_ms > 1000000", Over: "last 1s", Abort: true},
		{Check: "throughput > 1000000", Over: "last 1s", Abort: true},
		{Check: "error_rate > 100%", Over: "last 1s", Abort: true},
		{Check: "p99_ms > 1000000", Abort: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.OnFinal(func(s live.Second, b *stats.Bucket) {
		br, err := l.Add(LiveSecond(s, b))
		if err != nil || len(br) != 6 {
			t.Fatalf("second %d: breaches %v, %v; want all 6", s.T, br, err)
		}
		calls := float64(s.OK + s.Failed)
		thr = append(thr, view{uint64(br[3].Observed), uint64(math.Round(br[4].Observed * calls / 100)),
			br[0].Observed, br[1].Observed, br[2].Observed})
		thrRunP99 = br[5].Observed
	})
	now = time.Unix(base+oneBucketSeconds, 0)
	r.Add(0, calls, uint64(len(calls)), nil)
	r.End("")
	snap := r.Snapshot(0)
	for _, s := range snap.Seconds {
		dash = append(dash, view{s.OK, s.Failed, s.P50Ms, s.P99Ms, s.MeanMs})
	}
	return dash, thr, snap.Totals.P99Ms, thrRunP99
}

// reportView is the analysis of calls, in 1 s quanta.
func reportView(t *testing.T, base int64, calls []sample.Sample) *analyze.Result {
	t.Helper()
	in := &analyze.Input{Name: "one", Quantum: time.Second, Planned: 1,
		Testers: []analyze.Tester{{Index: 0, ID: "t0", Host: "h", Start: base * 1e9, End: (base + oneBucketSeconds) * 1e9}}}
	for _, c := range calls {
		in.Calls = append(in.Calls, sample.Call{Tester: 0, Start: c.Start, End: c.End, Status: c.Status})
	}
	res, err := analyze.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
