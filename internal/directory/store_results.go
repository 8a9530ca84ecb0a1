package directory

import (
	"context"
	"database/sql"
	"fmt"
)

const resultInsert = `INSERT INTO results (src, dst, kind, bandwidth_bps,
	bandwidth_after_slow_start_bps, latency_ms, latency_p50_ms, latency_p90_ms, latency_p99_ms, test_time_s,
	measured_at, busy, missed, median_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func resultArgs(r Result) []any {
	return []any{r.Src, r.Dst, r.Kind, r.BandwidthBps, r.BandwidthAfterSlowStartBps, r.LatencyMs, r.LatencyP50Ms,
		r.LatencyP90Ms, r.LatencyP99Ms, r.TestTimeS, r.MeasuredAt.UnixNano(), r.Busy, r.Missed, r.MedianOf}
}

// AddResult stores a result and returns its id. Only the retention
// policy makes downsampled rows: a result with MedianOf is refused.
func (s *Store) AddResult(ctx context.Context, r Result) (int64, error) {
	if r.MedianOf != 0 {
		return 0, fieldErr("median_of", "is set by the directory's retention policy, not by a sensor")
	}
	res, err := s.db.ExecContext(ctx, resultInsert, resultArgs(r)...)
	if err != nil {
		return 0, fmt.Errorf("storing a result %s→%s: %w", r.Src, r.Dst, err)
	}
	return res.LastInsertId()
}

// AddForecast stores a forecast and returns its id.
func (s *Store) AddForecast(ctx context.Context, f Forecast) (int64, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO forecasts (src, dst, kind, value, error, method, made_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, f.Src, f.Dst, f.Kind, f.Value, f.Error, f.Method, f.MadeAt.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("storing a forecast %s→%s: %w", f.Src, f.Dst, err)
	}
	return res.LastInsertId()
}

// pageSQL is the query of one page of q over t: after cursor c (nil:
// from the start), at most limit rows, newest first; with q.Latest the
// newest row of each (src, dst, kind), by src, dst, kind, read from t's
// latest table (and, with an until, each pair's newest row up to it,
// found through the pair index).
func pageSQL(q Query, t table, c *cursor, limit int) (string, []any) {
	var w conds
	switch {
	case !q.Latest:
		w.pairConds(q, "")
		w.timeConds(q, t.tcol)
		if c != nil {
			w.add("("+t.tcol+", id) < (?, ?)", c.At, c.ID)
		}
		return fmt.Sprintf(`SELECT %s FROM %s%s ORDER BY %s DESC, id DESC LIMIT %d`,
			t.cols, t.name, w.sql(), t.tcol, limit), w.args
	case q.Until.IsZero():
		w.pairConds(q, "")
		w.timeConds(q, t.tcol)
		if c != nil {
			w.add("(src, dst, kind) > (?, ?, ?)", c.Key[0], c.Key[1], c.Key[2])
		}
		return fmt.Sprintf(`SELECT %s FROM %s%s ORDER BY src, dst, kind LIMIT %d`, t.cols, t.latest, w.sql(), limit), w.args
	}
	var in conds
	in.add("src = l.src AND dst = l.dst AND kind = l.kind")
	in.timeConds(q, t.tcol)
	w.args = in.args
	w.pairConds(q, "l.")
	if c != nil {
		w.add("(l.src, l.dst, l.kind) > (?, ?, ?)", c.Key[0], c.Key[1], c.Key[2])
	}
	return fmt.Sprintf(`SELECT %s FROM %s l JOIN %s r ON r.id = (SELECT id FROM %s%s ORDER BY %s DESC, id DESC LIMIT 1)%s
		ORDER BY l.src, l.dst, l.kind LIMIT %d`, prefixed(t.cols, "r."), t.latest, t.name, t.name, in.sql(), t.tcol,
		w.sql(), limit), w.args
}

// readPage runs the query of one page of q over t on the readers, scanning
// each row with scan, and returns the rows and the next page's cursor
// ("" after the last page).
func readPage[T any](ctx context.Context, s *Store, q Query, t table, scan func(*sql.Rows) (T, error),
	next func(T) string) ([]T, string, error) {
	c, err := parseCursor(q)
	if err != nil {
		return nil, "", err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	query, args := pageSQL(q, t, c, limit+1)
	rows, err := s.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, "", fmt.Errorf("querying %s: %w", t.name, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, "", fmt.Errorf("querying %s: %w", t.name, err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("querying %s: %w", t.name, err)
	}
	if len(out) <= limit {
		return out, "", nil
	}
	out = out[:limit]
	return out, next(out[limit-1]), nil
}
