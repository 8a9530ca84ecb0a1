package directory

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Retention is how long the directory keeps history (diperf directory
// --keep-raw, --downsample, --keep-downsampled). The latest result and
// forecast of every pair are kept whatever their age.
type Retention struct {
	KeepRaw         time.Duration // results older are folded into medians; forecasts older are deleted; 0: keep all
	Bucket          time.Duration // one median row per src, dst, kind and bucket of this length (from the Unix epoch)
	KeepDownsampled time.Duration // median rows older are deleted; 0: keep them
}

// Retention defaults: a week of raw results, then hourly medians for a
// year.
const (
	DefaultKeepRaw         = 7 * 24 * time.Hour
	DefaultBucket          = time.Hour
	DefaultKeepDownsampled = 365 * 24 * time.Hour
)

// RetainStats counts what one pass of Retain did.
type RetainStats struct {
	Folded, Medians, DeletedMedians, DeletedForecasts int64
}

// The queries of retention (store_plan_test.go checks they use the
// indexes).
const (
	deleteMediansSQL = `DELETE FROM results WHERE id IN (SELECT id FROM results
			WHERE measured_at < ? AND median_of > 0 LIMIT ?)`
	deleteForecastsSQL = `DELETE FROM forecasts WHERE id IN (SELECT id FROM forecasts
		WHERE made_at < ? LIMIT ?)`
	oldestRawSQL = `SELECT min(measured_at) FROM results WHERE median_of = 0`
	bucketSQL    = `SELECT ` + resultCols + ` FROM results WHERE median_of = 0
		AND measured_at >= ? AND measured_at < ? ORDER BY measured_at, id`
)

// deleteBatch bounds the rows one deleting transaction removes, so that
// writes wait at most that long behind it.
const deleteBatch = 10_000

// Retain applies r at now: it folds the raw results older than
// r.KeepRaw into medians, one bucket a transaction, then deletes the
// median rows older than r.KeepDownsampled and the forecasts older than
// r.KeepRaw, in batches. It stops early, with what it did, when ctx ends.
func (s *Store) Retain(ctx context.Context, r Retention, now time.Time) (RetainStats, error) {
	var st RetainStats
	if r.KeepRaw <= 0 || r.Bucket <= 0 {
		return st, nil
	}
	b := int64(r.Bucket)
	cutoff := now.Add(-r.KeepRaw).UnixNano() / b * b
	for {
		folded, medians, err := s.foldBucket(ctx, cutoff, b)
		st.Folded, st.Medians = st.Folded+folded, st.Medians+medians
		if err != nil || folded == 0 {
			if err != nil {
				return st, err
			}
			break
		}
	}
	var err error
	if r.KeepDownsampled > 0 {
		st.DeletedMedians, err = s.deleteBatches(ctx, deleteMediansSQL, now.Add(-r.KeepDownsampled).UnixNano())
		if err != nil {
			return st, err
		}
	}
	st.DeletedForecasts, err = s.deleteBatches(ctx, deleteForecastsSQL, now.Add(-r.KeepRaw).UnixNano())
	return st, err
}

// deleteBatches runs query (a DELETE of at most the second argument's
// rows older than before) until it deletes nothing.
func (s *Store) deleteBatches(ctx context.Context, query string, before int64) (int64, error) {
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, query, before, deleteBatch)
		if err != nil {
			return total, fmt.Errorf("retention: %w", err)
		}
		n, _ := res.RowsAffected() //nolint:errcheck // SQLite always has it
		total += n
		if n < deleteBatch {
			return total, nil
		}
	}
}

// foldBucket replaces the raw results of the oldest bucket (width b ns)
// that has any, if it ends by cutoff, with one median row per src, dst
// and kind, at most foldBatch results a transaction; it returns the rows
// folded (0: nothing left to fold) and the rows made. The bucket is read
// beside the writer, and the rows deleted are those read, by id: a late
// result written meanwhile stays, to be folded by the next pass.
func (s *Store) foldBucket(ctx context.Context, cutoff, b int64) (folded, made int64, err error) {
	var oldest sql.NullInt64
	if err := s.rd.QueryRowContext(ctx, oldestRawSQL).Scan(&oldest); err != nil {
		return 0, 0, fmt.Errorf("retention: %w", err)
	}
	if !oldest.Valid || oldest.Int64 >= cutoff {
		return 0, 0, nil
	}
	from := oldest.Int64 - ((oldest.Int64%b)+b)%b // floor, also before 1970
	groups, err := bucketRows(ctx, s.rd, from, from+b)
	if err != nil {
		return 0, 0, err
	}
	for len(groups) > 0 {
		n, rows := 0, 0
		for n < len(groups) && (n == 0 || rows+len(groups[n]) <= foldBatch) {
			rows += len(groups[n])
			n++
		}
		if err := s.foldGroups(ctx, groups[:n], unixTime(from)); err != nil {
			return folded, made, err
		}
		folded, made, groups = folded+int64(rows), made+int64(n), groups[n:]
	}
	return folded, made, nil
}

// foldBatch bounds the results one folding transaction replaces, so that
// a write waits at most that long behind it.
const foldBatch = 1000

// foldGroups replaces, in one transaction, each group's results with
// their median row at time at.
func (s *Store) foldGroups(ctx context.Context, groups [][]Result, at time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("retention: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	for _, g := range groups {
		for _, r := range g {
			if _, err := tx.ExecContext(ctx, `DELETE FROM results WHERE id = ?`, r.ID); err != nil {
				return fmt.Errorf("retention: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, resultInsert, resultArgs(median(g, at))...); err != nil {
			return fmt.Errorf("retention: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("retention: %w", err)
	}
	return nil
}

// bucketRows reads the raw results in [from, to), grouped by src, dst
// and kind in the order of their first row.
func bucketRows(ctx context.Context, db *sql.DB, from, to int64) ([][]Result, error) {
	rows, err := db.QueryContext(ctx, bucketSQL, from, to)
	if err != nil {
		return nil, fmt.Errorf("retention: %w", err)
	}
	defer rows.Close()
	idx := map[[3]string]int{}
	var groups [][]Result
	for rows.Next() {
		r, err := scanResult(rows)
		if err != nil {
			return nil, fmt.Errorf("retention: %w", err)
		}
		k := [3]string{r.Src, r.Dst, r.Kind}
		i, ok := idx[k]
		if !ok {
			i, idx[k] = len(groups), len(groups)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups, rows.Err()
}

// RetentionEvery is how often the directory applies its retention.
const RetentionEvery = 10 * time.Minute

// RunRetention applies r now and every RetentionEvery until ctx ends,
// saying what each pass did (when it did something) or why it failed to
// logf. now is the clock.
func (s *Store) RunRetention(ctx context.Context, r Retention, now func() time.Time, logf func(format string, args ...any)) {
	if r.KeepRaw <= 0 {
		return
	}
	t := time.NewTicker(RetentionEvery)
	defer t.Stop()
	for {
		st, err := s.Retain(ctx, r, now())
		switch {
		case err != nil && ctx.Err() == nil:
			logf("retention: %v (tried again in %v)", err, RetentionEvery)
		case st != (RetainStats{}):
			logf("retention: %d results folded into %d medians, %d medians and %d forecasts deleted",
				st.Folded, st.Medians, st.DeletedMedians, st.DeletedForecasts)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
