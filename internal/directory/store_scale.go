package directory

import (
	"context"
	"database/sql"
	"fmt"
)

// Readers is the size of the store's pool of reading connections: in WAL
// mode they read beside the one writer, so that a scrape or a map does
// not hold up a write, nor a write them.
const Readers = 4

// Page caches (KiB): the writer's holds the indexes' pages a write
// touches at 10 M results; a reader's, the latest tables (SQLite's
// default is 2 MiB).
const (
	WriterCacheKiB = 64 << 10
	ReaderCacheKiB = 16 << 10
)

// The latest result and forecast of each (src, dst, kind) are kept in
// tables of their own, updated by triggers in the transaction of each
// write: /metrics, netmap and latest=true read O(pairs) rows whatever
// the history. A downsampled row (median_of > 0, store_retention.go) is
// never a latest.
const latestSchema = `
ALTER TABLE results ADD COLUMN median_of INTEGER NOT NULL DEFAULT 0;
CREATE INDEX results_raw ON results (measured_at) WHERE median_of = 0;
CREATE TABLE latest_results (
	id INTEGER NOT NULL,
	src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
	bandwidth_bps REAL NOT NULL, bandwidth_after_slow_start_bps REAL NOT NULL,
	latency_ms REAL NOT NULL, latency_p50_ms REAL NOT NULL, latency_p90_ms REAL NOT NULL, latency_p99_ms REAL NOT NULL,
	test_time_s REAL NOT NULL, measured_at INTEGER NOT NULL, busy INTEGER NOT NULL, missed INTEGER NOT NULL,
	median_of INTEGER NOT NULL,
	PRIMARY KEY (src, dst, kind)
) WITHOUT ROWID;
INSERT INTO latest_results SELECT ` + resultCols + ` FROM (SELECT *, row_number() OVER (PARTITION BY src, dst, kind
	ORDER BY measured_at DESC, id DESC) AS rn FROM results) WHERE rn = 1;
CREATE TRIGGER results_latest AFTER INSERT ON results WHEN NEW.median_of = 0 BEGIN
	INSERT INTO latest_results VALUES (NEW.id, NEW.src, NEW.dst, NEW.kind, NEW.bandwidth_bps,
		NEW.bandwidth_after_slow_start_bps, NEW.latency_ms, NEW.latency_p50_ms, NEW.latency_p90_ms, NEW.latency_p99_ms,
		NEW.test_time_s, NEW.measured_at, NEW.busy, NEW.missed, 0)
	ON CONFLICT (src, dst, kind) DO UPDATE SET id=excluded.id, bandwidth_bps=excluded.bandwidth_bps,
		bandwidth_after_slow_start_bps=excluded.bandwidth_after_slow_start_bps, latency_ms=excluded.latency_ms,
		latency_p50_ms=excluded.latency_p50_ms, latency_p90_ms=excluded.latency_p90_ms,
		latency_p99_ms=excluded.latency_p99_ms, test_time_s=excluded.test_time_s,
		measured_at=excluded.measured_at, busy=excluded.busy, missed=excluded.missed
	WHERE (excluded.measured_at, excluded.id) > (latest_results.measured_at, latest_results.id);
END;
CREATE INDEX forecasts_time ON forecasts (made_at);
CREATE TABLE latest_forecasts (
	id INTEGER NOT NULL,
	src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
	value REAL NOT NULL, error REAL NOT NULL, method TEXT NOT NULL, made_at INTEGER NOT NULL,
	PRIMARY KEY (src, dst, kind)
) WITHOUT ROWID;
INSERT INTO latest_forecasts SELECT ` + forecastCols + ` FROM (SELECT *, row_number() OVER (PARTITION BY src, dst, kind
	ORDER BY made_at DESC, id DESC) AS rn FROM forecasts) WHERE rn = 1;
CREATE TRIGGER forecasts_latest AFTER INSERT ON forecasts BEGIN
	INSERT INTO latest_forecasts VALUES (NEW.id, NEW.src, NEW.dst, NEW.kind, NEW.value, NEW.error, NEW.method, NEW.made_at)
	ON CONFLICT (src, dst, kind) DO UPDATE SET id=excluded.id, value=excluded.value, error=excluded.error,
		method=excluded.method, made_at=excluded.made_at
	WHERE (excluded.made_at, excluded.id) > (latest_forecasts.made_at, latest_forecasts.id);
END;
`

// openScale completes OpenStore: it adds the latest tables to a database
// made before them (filled once from the history), and opens the readers.
func openScale(path, dsn string, db *sql.DB) (*Store, error) {
	if err := migrateLatest(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s: adding the latest tables: %w", path, err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA cache_size = -%d", WriterCacheKiB)); err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	rd, err := sql.Open("sqlite", dsn+fmt.Sprintf("&_pragma=query_only(1)&_pragma=cache_size(-%d)", ReaderCacheKiB))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	rd.SetMaxOpenConns(Readers)
	rd.SetMaxIdleConns(Readers)
	return &Store{db: db, rd: rd}, nil
}

// migrateLatest runs latestSchema, in one transaction, unless the
// database has it already.
func migrateLatest(db *sql.DB) error {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'latest_results'`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.Exec(latestSchema); err != nil {
		return err
	}
	return tx.Commit()
}
