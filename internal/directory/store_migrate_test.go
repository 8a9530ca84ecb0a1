package directory

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A database made before the latest tables (the schema alone) gets them
// when opened, filled from its history; then a result written late,
// older than a pair's latest (a sensor sending what it kept while the
// directory was down), does not replace it, and a newer one does.
func TestOpenAddsTheLatestTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := old.Exec(schema); err != nil {
		t.Fatal(err)
	}
	for i, at := range []time.Time{t0.Add(time.Minute), t0, t0.Add(2 * time.Minute), t0.Add(2 * time.Minute)} {
		if _, err := old.Exec(`INSERT INTO results (src, dst, kind, bandwidth_bps, bandwidth_after_slow_start_bps, latency_ms,
			latency_p50_ms, latency_p90_ms, latency_p99_ms, test_time_s, measured_at, busy, missed)
			VALUES ('a', 'b', 'bandwidth', ?, 0, 0, 0, 0, 0, 1, ?, 0, 0)`, float64(i+1), at.UnixNano()); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	check := func(when string, wantID int64) {
		t.Helper()
		l, err := s.LatestResults(ctx)
		if err != nil || len(l) != 1 || l[0].ID != wantID {
			t.Errorf("%s: latest %+v, %v; want id %d", when, l, err, wantID)
		}
	}
	check("opened", 4) // the newest time, the higher id of two
	if _, err := s.AddResult(ctx, bwResult("a", "b", t0.Add(-time.Hour), 9)); err != nil {
		t.Fatal(err)
	}
	check("after a late result", 4)
	id, err := s.AddResult(ctx, bwResult("a", "b", t0.Add(time.Hour), 9))
	if err != nil {
		t.Fatal(err)
	}
	check("after a newer result", id)
}
