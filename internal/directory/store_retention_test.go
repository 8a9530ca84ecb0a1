package directory

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Retention folds the raw results older than KeepRaw into one median row
// per pair, kind and hour, leaves the newer ones and every pair's latest
// as they are, deletes the median rows older than KeepDownsampled and
// the forecasts older than KeepRaw; a second pass finds nothing to do.
func TestRetention(t *testing.T) {
	s, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Date(2026, 3, 20, 12, 30, 0, 0, time.UTC)
	old := time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC) // 10 days ago
	var rs []Result
	for i, bps := range []float64{5, 1, 4, 2, 3} { // a→b in the hour from 06:00: median 3
		rs = append(rs, Result{Src: "a", Dst: "b", Kind: KindBandwidth, BandwidthBps: bps * 1e6, TestTimeS: 5,
			MeasuredAt: old.Add(time.Duration(i) * 10 * time.Minute), Busy: int64(i), Missed: 1})
	}
	rs = append(rs,
		Result{Src: "a", Dst: "b", Kind: KindBandwidth, BandwidthBps: 8e6, TestTimeS: 5, MeasuredAt: old.Add(time.Hour)}, // next hour
		Result{Src: "c", Dst: "d", Kind: KindLatency, LatencyMs: 1, LatencyP50Ms: 1, LatencyP90Ms: 2, LatencyP99Ms: 3,
			TestTimeS: 5, MeasuredAt: old.Add(5 * time.Minute)}, // c→d: only old results
		Result{Src: "c", Dst: "d", Kind: KindLatency, LatencyMs: 3, LatencyP50Ms: 3, LatencyP90Ms: 4, LatencyP99Ms: 9,
			TestTimeS: 5, MeasuredAt: old.Add(6 * time.Minute)},
		bwResult("a", "b", now.Add(-time.Hour), 9e6), // recent: stays raw
	)
	if err := s.AddResults(ctx, rs); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{old, now.Add(-time.Hour)} {
		if _, err := s.AddForecast(ctx, Forecast{Src: "a", Dst: "b", Kind: KindBandwidth, Value: 1, Error: 1, Method: "last", MadeAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	latestBefore, err := s.LatestResults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := Retention{KeepRaw: 7 * 24 * time.Hour, Bucket: time.Hour, KeepDownsampled: 30 * 24 * time.Hour}
	st, err := s.Retain(ctx, r, now)
	if err != nil {
		t.Fatal(err)
	}
	if st != (RetainStats{Folded: 8, Medians: 3, DeletedForecasts: 1}) {
		t.Errorf("first pass: %+v; want 8 results folded into 3 medians, the old forecast deleted", st)
	}
	all, err := s.Results(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, x := range all {
		got = append(got, x.Src+x.Dst+" "+x.MeasuredAt.Format("02T15:04")+" "+fmtG(x.BandwidthBps)+" "+fmtG(x.LatencyP99Ms)+
			" n="+fmtG(float64(x.MedianOf))+" busy="+fmtG(float64(x.Busy)))
	}
	want := []string{
		"ab 20T11:30 9e+06 0 n=0 busy=0",
		"ab 10T07:00 8e+06 0 n=1 busy=0",
		"cd 10T06:00 0 6 n=2 busy=0", // same time: the newer id first
		"ab 10T06:00 3e+06 0 n=5 busy=4",
	}
	if !slices.Equal(got, want) {
		t.Errorf("after retention:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	latestAfter, err := s.LatestResults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(latestAfter, latestBefore) {
		t.Errorf("the latest changed:\n%+v\nwant\n%+v", latestAfter, latestBefore)
	}
	if st, err := s.Retain(ctx, r, now); err != nil || st != (RetainStats{}) {
		t.Errorf("second pass: %+v, %v; want nothing done", st, err)
	}
	r.KeepDownsampled = 9 * 24 * time.Hour
	if st, err := s.Retain(ctx, r, now); err != nil || st != (RetainStats{DeletedMedians: 3}) {
		t.Errorf("keeping medians 9 days: %+v, %v; want the 3 deleted", st, err)
	}
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Only the retention policy makes rows of medians: a result that says it
// is one is refused, naming the field.
func TestMedianOfIsNotWritable(t *testing.T) {
	c, _, base := testServer(t)
	registerAll(t, c, "a", "b")
	code, fe := post(t, base+"/v1/results", `{"src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":1e6,
		"test_time_s":5,"measured_at":"2026-03-01T00:00:00Z","busy":0,"missed":0,"median_of":5}`)
	if code != 400 || fe.Field != "median_of" {
		t.Errorf("a result with median_of: %d %+v; want 400 naming median_of", code, fe)
	}
}
