package directory

import (
	"context"
	"database/sql"
	"fmt"
)

const (
	resultCols = `id, src, dst, kind, bandwidth_bps, bandwidth_after_slow_start_bps, latency_ms, latency_p50_ms,
	latency_p90_ms, latency_p99_ms, test_time_s, measured_at, busy, missed, median_of`
	forecastCols = "id, src, dst, kind, value, error, method, made_at"
)

func scanResult(rows *sql.Rows) (Result, error) {
	var r Result
	var at int64
	err := rows.Scan(&r.ID, &r.Src, &r.Dst, &r.Kind, &r.BandwidthBps, &r.BandwidthAfterSlowStartBps,
		&r.LatencyMs, &r.LatencyP50Ms, &r.LatencyP90Ms, &r.LatencyP99Ms, &r.TestTimeS, &at, &r.Busy, &r.Missed, &r.MedianOf)
	r.MeasuredAt = unixTime(at)
	return r, err
}

func scanForecast(rows *sql.Rows) (Forecast, error) {
	var f Forecast
	var at int64
	err := rows.Scan(&f.ID, &f.Src, &f.Dst, &f.Kind, &f.Value, &f.Error, &f.Method, &at)
	f.MadeAt = unixTime(at)
	return f, err
}

// ResultsPage returns a page of the results q selects (at most q.Limit,
// from q.Cursor) and the cursor of the next page, "" if none follows.
func (s *Store) ResultsPage(ctx context.Context, q Query) ([]Result, string, error) {
	return readPage(ctx, s, q, resultsTable, scanResult, func(r Result) string {
		return nextCursor(q, r.MeasuredAt, r.ID, r.Src, r.Dst, r.Kind)
	})
}

// ForecastsPage is ResultsPage for forecasts (times are made_at).
func (s *Store) ForecastsPage(ctx context.Context, q Query) ([]Forecast, string, error) {
	return readPage(ctx, s, q, forecastsTable, scanForecast, func(f Forecast) string {
		return nextCursor(q, f.MadeAt, f.ID, f.Src, f.Dst, f.Kind)
	})
}

// Results returns the first page of the results q selects (ResultsPage
// without its cursor).
func (s *Store) Results(ctx context.Context, q Query) ([]Result, error) {
	rs, _, err := s.ResultsPage(ctx, q)
	return rs, err
}

// Forecasts returns the first page of the forecasts q selects.
func (s *Store) Forecasts(ctx context.Context, q Query) ([]Forecast, error) {
	fs, _, err := s.ForecastsPage(ctx, q)
	return fs, err
}

// LatestResults returns the newest result of every (src, dst, kind), by
// src, dst, kind: O(pairs), whatever the history.
func (s *Store) LatestResults(ctx context.Context) ([]Result, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT `+resultCols+` FROM latest_results ORDER BY src, dst, kind`)
	if err != nil {
		return nil, fmt.Errorf("reading the latest results: %w", err)
	}
	defer rows.Close()
	out := []Result{}
	for rows.Next() {
		r, err := scanResult(rows)
		if err != nil {
			return nil, fmt.Errorf("reading the latest results: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the latest results: %w", err)
	}
	return out, nil
}

// AddResults stores results in one transaction through one prepared
// statement (a bulk load: bench directory, tests). They are not checked:
// the API's decoder checks what comes from the wire.
func (s *Store) AddResults(ctx context.Context, rs []Result) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storing results: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	st, err := tx.PrepareContext(ctx, resultInsert)
	if err != nil {
		return fmt.Errorf("storing results: %w", err)
	}
	defer st.Close()
	for _, r := range rs {
		if _, err := st.ExecContext(ctx, resultArgs(r)...); err != nil {
			return fmt.Errorf("storing a result %s→%s: %w", r.Src, r.Dst, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storing results: %w", err)
	}
	return nil
}

// Counts returns how many results the store holds and how many (src,
// dst, kind) have a latest one.
func (s *Store) Counts(ctx context.Context) (results, pairKinds int64, err error) {
	err = s.rd.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM latest_results)`).Scan(&results, &pairKinds)
	if err != nil {
		return 0, 0, fmt.Errorf("counting results: %w", err)
	}
	return results, pairKinds, nil
}
