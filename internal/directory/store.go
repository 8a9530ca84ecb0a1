package directory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// Store is the directory's database: one SQLite file in WAL mode with
// synchronous=FULL, so that a result the API acknowledged survives the
// process being killed and the machine losing power.
type Store struct {
	db *sql.DB // the writer: one connection
	rd *sql.DB // readers (store_scale.go): a pool beside the writer
}

const schema = `
CREATE TABLE IF NOT EXISTS sensors (
	name TEXT PRIMARY KEY,
	address TEXT NOT NULL,
	groups TEXT NOT NULL,       -- space-separated
	version TEXT NOT NULL,
	capabilities TEXT NOT NULL, -- space-separated
	ttl_ns INTEGER NOT NULL,
	registered_at INTEGER NOT NULL, -- Unix ns
	renewed_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
	bandwidth_bps REAL NOT NULL, bandwidth_after_slow_start_bps REAL NOT NULL,
	latency_ms REAL NOT NULL, -- 1 / transactions per second
	latency_p50_ms REAL NOT NULL, latency_p90_ms REAL NOT NULL, latency_p99_ms REAL NOT NULL,
	test_time_s REAL NOT NULL,
	measured_at INTEGER NOT NULL, -- Unix ns
	busy INTEGER NOT NULL, missed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS results_pair ON results (src, dst, kind, measured_at);
CREATE INDEX IF NOT EXISTS results_time ON results (measured_at);
CREATE TABLE IF NOT EXISTS forecasts (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
	value REAL NOT NULL, error REAL NOT NULL, method TEXT NOT NULL,
	made_at INTEGER NOT NULL -- Unix ns
);
CREATE INDEX IF NOT EXISTS forecasts_pair ON forecasts (src, dst, kind, made_at);
`

// OpenStore opens (creating if needed) the database file at path.
func OpenStore(path string) (*Store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(5000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer: SQLite serializes writes anyway, and no SQLITE_BUSY
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	if mode != "wal" {
		db.Close()
		return nil, fmt.Errorf("database %s: journal mode is %q, not WAL", path, mode)
	}
	if _, err := db.Exec(schema + keysSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("database %s: creating tables: %w", path, err)
	}
	return openScale(path, dsn, db)
}

// Close closes the database.
func (s *Store) Close() error { return errors.Join(s.rd.Close(), s.db.Close()) }

// ErrNotRegistered is a renewal of a sensor the directory does not know.
var ErrNotRegistered = errors.New("sensor not registered")

// Register records (or replaces) a sensor's registration with a lease of
// ttl from now; its first registration time is kept.
func (s *Store) Register(ctx context.Context, r Registration, ttl time.Duration, now time.Time) error {
	n := now.UnixNano()
	_, err := s.db.ExecContext(ctx, `INSERT INTO sensors
		(name, address, groups, version, capabilities, ttl_ns, registered_at, renewed_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET address=excluded.address, groups=excluded.groups,
		version=excluded.version, capabilities=excluded.capabilities, ttl_ns=excluded.ttl_ns,
		renewed_at=excluded.renewed_at, expires_at=excluded.expires_at`,
		r.Name, r.Address, strings.Join(r.Groups, " "), r.Version, strings.Join(r.Capabilities, " "),
		int64(ttl), n, n, n+int64(ttl))
	if err != nil {
		return fmt.Errorf("registering %s: %w", r.Name, err)
	}
	return nil
}

// Renew extends a sensor's lease by its TTL from now and returns the TTL.
func (s *Store) Renew(ctx context.Context, name string, now time.Time) (time.Duration, error) {
	var ttl int64
	err := s.db.QueryRowContext(ctx, `UPDATE sensors SET renewed_at=?, expires_at=?+ttl_ns WHERE name=? RETURNING ttl_ns`,
		now.UnixNano(), now.UnixNano(), name).Scan(&ttl)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotRegistered
	}
	if err != nil {
		return 0, fmt.Errorf("renewing %s: %w", name, err)
	}
	return time.Duration(ttl), nil
}

// Sensors lists the registered sensors (those in group, if given), by
// name, each live or stale at now.
func (s *Store) Sensors(ctx context.Context, group string, now time.Time) ([]Sensor, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT name, address, groups, version, capabilities, ttl_ns,
		registered_at, renewed_at, expires_at FROM sensors ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("listing sensors: %w", err)
	}
	defer rows.Close()
	out := []Sensor{}
	for rows.Next() {
		var x Sensor
		var groups, caps string
		var ttl, reg, ren, exp int64
		if err := rows.Scan(&x.Name, &x.Address, &groups, &x.Version, &caps, &ttl, &reg, &ren, &exp); err != nil {
			return nil, fmt.Errorf("listing sensors: %w", err)
		}
		x.Groups, x.Capabilities = strings.Fields(groups), fields(caps)
		x.TTLSeconds = time.Duration(ttl).Seconds()
		x.RegisteredAt, x.RenewedAt, x.ExpiresAt = unixTime(reg), unixTime(ren), unixTime(exp)
		x.State = StateLive
		if !now.Before(x.ExpiresAt) {
			x.State = StateStale
		}
		if group == "" || contains(x.Groups, group) {
			out = append(out, x)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing sensors: %w", err)
	}
	return out, nil
}

// fields is strings.Fields that gives an empty list, not nil.
func fields(s string) []string {
	if f := strings.Fields(s); f != nil {
		return f
	}
	return []string{}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func unixTime(ns int64) time.Time { return time.Unix(0, ns).UTC() }
