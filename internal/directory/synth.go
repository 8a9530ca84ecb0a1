package directory

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// SynthOptions describe a synthetic mesh and its history (diperf bench
// directory): Sensors sensors in sites of Site; each tests every other
// sensor of its site, and the first of each site (its global sensor) the
// other sites' global sensors, both kinds; Results results are written
// round after round over these pairs, evenly over the History before
// now.
type SynthOptions struct {
	Sensors, Site int
	Results       int64
	History       time.Duration
}

// SynthPair is an ordered pair of the synthetic mesh.
type SynthPair struct{ Src, Dst string }

// SynthName is the name of the synthetic mesh's sensor i.
func SynthName(i int) string { return fmt.Sprintf("s%04d", i) }

// Pairs lists the ordered pairs o's sensors test.
func (o SynthOptions) Pairs() []SynthPair {
	var ps []SynthPair
	for i := range o.Sensors {
		site := i / o.Site
		for j := range o.Sensors {
			sameSite := j/o.Site == site && i != j
			globals := i%o.Site == 0 && j%o.Site == 0 && j/o.Site != site
			if sameSite || globals {
				ps = append(ps, SynthPair{SynthName(i), SynthName(j)})
			}
		}
	}
	return ps
}

// Synthesize registers o's sensors (lease ttl) and writes its history
// into an empty store by a bulk path: the indexes and the trigger of
// results are set aside, SQLite makes the rows itself (a recursive CTE
// over a table of the pairs and kinds), then the indexes are built again
// and the latest table filled from the last round. It returns the number
// of pairs and kinds.
func (s *Store) Synthesize(ctx context.Context, o SynthOptions, ttl time.Duration, now time.Time) (int, error) {
	if o.Sensors < 2 || o.Site < 2 || o.Results < 1 || o.History <= 0 {
		return 0, errors.New("synthesize: want at least 2 sensors, sites of 2, a result and a history")
	}
	if err := s.RegisterSynth(ctx, o, ttl, now); err != nil {
		return 0, err
	}
	pairs := o.Pairs()
	if err := s.synthPairs(ctx, pairs); err != nil {
		return 0, err
	}
	step := int64(o.History) / o.Results
	if err := s.synthRows(ctx, o.Results, int64(2*len(pairs)), now.Add(-o.History).UnixNano(), max(step, 1)); err != nil {
		return 0, fmt.Errorf("synthesize: %w", err)
	}
	return 2 * len(pairs), nil
}

// RegisterSynth registers o's sensors with a lease of ttl from now.
func (s *Store) RegisterSynth(ctx context.Context, o SynthOptions, ttl time.Duration, now time.Time) error {
	for i := range o.Sensors {
		r := Registration{Name: SynthName(i), Address: fmt.Sprintf("127.0.0.1:%d", 10000+i), Version: "1",
			Groups: []string{"local", fmt.Sprintf("site:%d", i/o.Site)}, Capabilities: []string{KindBandwidth, KindLatency}}
		if i%o.Site == 0 {
			r.Groups = append(r.Groups, "global")
		}
		if err := s.Register(ctx, r, ttl, now); err != nil {
			return err
		}
	}
	return nil
}

// synthPairs fills the table synth_pairs: n, src, dst, kind.
func (s *Store) synthPairs(ctx context.Context, pairs []SynthPair) error {
	if _, err := s.db.ExecContext(ctx, `DROP TABLE IF EXISTS synth_pairs;
		CREATE TABLE synth_pairs (n INTEGER PRIMARY KEY, src TEXT, dst TEXT, kind TEXT)`); err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	for i, p := range pairs {
		for k, kind := range []string{KindBandwidth, KindLatency} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO synth_pairs VALUES (?, ?, ?, ?)`, 2*i+k, p.Src, p.Dst, kind); err != nil {
				return fmt.Errorf("synthesize: %w", err)
			}
		}
	}
	return tx.Commit()
}

// synthInsert makes n results, row i of pair and kind i % pk at from + i
// × step ns, with figures that vary from row to row.
const synthInsert = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
INSERT INTO results (src, dst, kind, bandwidth_bps, bandwidth_after_slow_start_bps, latency_ms, latency_p50_ms,
	latency_p90_ms, latency_p99_ms, test_time_s, measured_at, busy, missed)
SELECT p.src, p.dst, p.kind,
	iif(p.kind = 'bandwidth', 1e8 + (i % 997) * 1e5, 0), iif(p.kind = 'bandwidth', 1.05e8 + (i % 997) * 1e5, 0),
	iif(p.kind = 'latency', 0.2 + (i % 991) / 1000.0, 0), iif(p.kind = 'latency', 0.2 + (i % 991) / 1000.0, 0),
	iif(p.kind = 'latency', 0.3 + (i % 991) / 1000.0, 0), iif(p.kind = 'latency', 0.6 + (i % 991) / 1000.0, 0),
	5, ?3 + i * ?4, i / (?2 * 10), 0
FROM n JOIN synth_pairs p ON p.n = n.i % ?2`

// synthRows writes the rows in one transaction without the indexes and
// triggers of results, then builds them again and fills the latest
// table from the last round (the store had no results).
func (s *Store) synthRows(ctx context.Context, n, pk, from, step int64) error {
	var count int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM results`).Scan(&count); err != nil || count > 0 {
		return errors.Join(err, fmt.Errorf("the store has %d results; want none", count))
	}
	drops, creates, err := s.resultsDDL(ctx)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	steps := []struct {
		sql  string
		args []any
	}{
		{drops, nil},
		{synthInsert, []any{n, pk, from, step}},
		{creates, nil},
		{`INSERT INTO latest_results SELECT ` + resultCols + ` FROM results WHERE id > (SELECT max(id) FROM results) - ?`, []any{pk}},
		{`DROP TABLE synth_pairs`, nil},
	}
	for _, st := range steps {
		if _, err := tx.ExecContext(ctx, st.sql, st.args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// resultsDDL returns the statements that drop and that make again the
// indexes and triggers of results.
func (s *Store) resultsDDL(ctx context.Context) (drops, creates string, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT type, name, sql FROM sqlite_schema WHERE tbl_name = 'results'
		AND type IN ('index', 'trigger') AND sql IS NOT NULL`)
	if err != nil {
		return "", "", err
	}
	defer rows.Close()
	for rows.Next() {
		var typ, name, q string
		if err := rows.Scan(&typ, &name, &q); err != nil {
			return "", "", err
		}
		drops += "DROP " + typ + " " + name + ";\n"
		creates += q + ";\n"
	}
	return drops, creates, rows.Err()
}
