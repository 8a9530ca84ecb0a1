package directory

import (
	"context"
	"fmt"
	"strings"
)

// AddResult stores a result and returns its id.
func (s *Store) AddResult(ctx context.Context, r Result) (int64, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO results (src, dst, kind, bandwidth_bps,
		bandwidth_after_slow_start_bps, latency_ms, latency_p50_ms, latency_p90_ms, latency_p99_ms, test_time_s,
		measured_at, busy, missed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Src, r.Dst, r.Kind, r.BandwidthBps, r.BandwidthAfterSlowStartBps, r.LatencyMs, r.LatencyP50Ms, r.LatencyP90Ms,
		r.LatencyP99Ms, r.TestTimeS, r.MeasuredAt.UnixNano(), r.Busy, r.Missed)
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

// where builds the WHERE clause of q over the time column tcol.
func (q Query) where(tcol string) (string, []any) {
	var conds []string
	var args []any
	for _, c := range []struct{ col, v string }{{"src", q.Src}, {"dst", q.Dst}, {"kind", q.Kind}} {
		if c.v != "" {
			conds = append(conds, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	if !q.Since.IsZero() {
		conds = append(conds, tcol+" >= ?")
		args = append(args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		conds = append(conds, tcol+" <= ?")
		args = append(args, q.Until.UnixNano())
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// selectSQL is the query for q over table's columns cols, newest first;
// with q.Latest only the newest row of each (src, dst, kind).
func (q Query) selectSQL(table, cols, tcol string) (string, []any) {
	w, args := q.where(tcol)
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	args = append(args, limit)
	if q.Latest {
		return fmt.Sprintf(`SELECT %s FROM (SELECT *, row_number() OVER (PARTITION BY src, dst, kind
			ORDER BY %s DESC, id DESC) AS rn FROM %s%s) WHERE rn = 1 ORDER BY src, dst, kind LIMIT ?`,
			cols, tcol, table, w), args
	}
	return fmt.Sprintf(`SELECT %s FROM %s%s ORDER BY %s DESC, id DESC LIMIT ?`, cols, table, w, tcol), args
}

const resultCols = `id, src, dst, kind, bandwidth_bps, bandwidth_after_slow_start_bps, latency_ms, latency_p50_ms,
	latency_p90_ms, latency_p99_ms, test_time_s, measured_at, busy, missed`

// Results returns the results q selects.
func (s *Store) Results(ctx context.Context, q Query) ([]Result, error) {
	query, args := q.selectSQL("results", resultCols, "measured_at")
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("querying results: %w", err)
	}
	defer rows.Close()
	out := []Result{}
	for rows.Next() {
		var r Result
		var at int64
		if err := rows.Scan(&r.ID, &r.Src, &r.Dst, &r.Kind, &r.BandwidthBps, &r.BandwidthAfterSlowStartBps,
			&r.LatencyMs, &r.LatencyP50Ms, &r.LatencyP90Ms, &r.LatencyP99Ms, &r.TestTimeS, &at, &r.Busy, &r.Missed); err != nil {
			return nil, fmt.Errorf("querying results: %w", err)
		}
		r.MeasuredAt = unixTime(at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("querying results: %w", err)
	}
	return out, nil
}

// Forecasts returns the forecasts q selects (its times are made_at).
func (s *Store) Forecasts(ctx context.Context, q Query) ([]Forecast, error) {
	query, args := q.selectSQL("forecasts", "id, src, dst, kind, value, error, method, made_at", "made_at")
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("querying forecasts: %w", err)
	}
	defer rows.Close()
	out := []Forecast{}
	for rows.Next() {
		var f Forecast
		var at int64
		if err := rows.Scan(&f.ID, &f.Src, &f.Dst, &f.Kind, &f.Value, &f.Error, &f.Method, &at); err != nil {
			return nil, fmt.Errorf("querying forecasts: %w", err)
		}
		f.MadeAt = unixTime(at)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("querying forecasts: %w", err)
	}
	return out, nil
}
