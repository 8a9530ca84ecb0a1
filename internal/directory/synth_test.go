package directory

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Synthesize's bulk path leaves the store as the API would have: every
// pair's latest is the newest of its rows, the indexes and the trigger
// are back (a write after it updates the latest).
func TestSynthesize(t *testing.T) {
	s, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	o := SynthOptions{Sensors: 9, Site: 3, Results: 1000, History: time.Hour}
	pk, err := s.Synthesize(ctx, o, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * (3*3*2 + 3*2); pk != want || len(o.Pairs())*2 != want {
		t.Fatalf("%d pairs and kinds; want %d (each site's 6 pairs, the globals' 6)", pk, want)
	}
	latest, err := s.LatestResults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(latest) != pk {
		t.Fatalf("%d latest; want %d", len(latest), pk)
	}
	for _, l := range latest {
		rs, err := s.Results(ctx, Query{Src: l.Src, Dst: l.Dst, Kind: l.Kind, Limit: 1})
		if err != nil || len(rs) != 1 || rs[0] != l {
			t.Fatalf("latest %+v; the newest row is %+v (%v)", l, rs, err)
		}
	}
	r := bwResult(latest[0].Src, latest[0].Dst, now, 42)
	if r.ID, err = s.AddResult(ctx, r); err != nil {
		t.Fatal(err)
	}
	if rs, err := s.Results(ctx, Query{Src: r.Src, Dst: r.Dst, Kind: r.Kind, Latest: true}); err != nil || len(rs) != 1 || rs[0] != r {
		t.Errorf("after a write: latest %+v, %v; want %+v", rs, err, r)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE tbl_name = 'results' AND type IN ('index', 'trigger')`).Scan(&n); err != nil || n != 4 {
		t.Errorf("%d indexes and triggers on results (%v); want 4", n, err)
	}
}
