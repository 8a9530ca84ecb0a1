package directory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// queryPlan is SQLite's EXPLAIN QUERY PLAN of query, one line a step.
func queryPlan(t *testing.T, s *Store, query string, args []any) string {
	t.Helper()
	rows, err := s.rd.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	return b.String()
}

// Every query the API, /metrics and netmap make reads through an index
// or the latest table, never the whole history (a SCAN of results or
// forecasts but in the order of an index, up to the page's limit) nor
// sorts it (a temporary B-tree): their cost is that of the page or of
// the pairs, whatever the history (issue 21 row 11). (A query of one
// src, or of a src and dst without kind, sorts that sensor's or that
// pair's rows.)
func TestQueryPlansUseTheIndexes(t *testing.T) {
	s, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	key := &cursor{Key: []string{"a", "b", "latency"}}
	at := &cursor{At: t0.UnixNano(), ID: 7}
	for _, c := range []struct {
		q Query
		c *cursor
	}{
		{Query{}, nil}, {Query{}, at},
		{Query{Src: "a", Dst: "b", Kind: "bandwidth"}, at},
		{Query{Src: "a", Dst: "b", Kind: "latency"}, nil},
		{Query{Since: t0, Until: t0.Add(time.Hour)}, at},
		{Query{Latest: true}, nil}, {Query{Latest: true}, key},
		{Query{Latest: true, Src: "a", Since: t0}, key},
		{Query{Latest: true, Until: t0}, key},
		{Query{Latest: true, Src: "a", Dst: "b", Since: t0, Until: t0}, nil},
	} {
		for _, tb := range []table{resultsTable, forecastsTable} {
			query, args := pageSQL(c.q, tb, c.c, 1001)
			p := queryPlan(t, s, query, args)
			for _, bad := range []string{"SCAN results\n", "SCAN forecasts\n", "TEMP B-TREE"} {
				if strings.Contains(p, bad) {
					t.Errorf("%+v cursor %+v on %s: plan has %q:\n%s\n%s", c.q, c.c, tb.name, bad, query, p)
				}
			}
		}
	}
	if p := queryPlan(t, s, `SELECT `+resultCols+` FROM latest_results ORDER BY src, dst, kind`, nil); strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("/metrics sorts the latest results:\n%s", p)
	}
	for _, q := range []struct{ sql, want string }{
		{oldestRawSQL, "results_raw"}, {bucketSQL, "results_raw"},
		{deleteMediansSQL, "results_time"}, {deleteForecastsSQL, "forecasts_time"},
	} {
		if p := queryPlan(t, s, q.sql, []any{1, 2}); !strings.Contains(p, "USING INDEX "+q.want) && !strings.Contains(p, "COVERING INDEX "+q.want) {
			t.Errorf("retention does not use %s:\n%s\n%s", q.want, q.sql, p)
		}
	}
}
