package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// DirectoryOptions configure the directory's benchmark: a synthetic
// mesh and history loaded into a new database, then result writes,
// /metrics scrapes and netmap queries against it, all at once, for
// Duration.
type DirectoryOptions struct {
	Synth    directory.SynthOptions
	Duration time.Duration
	Dir      string // where the database goes ("" = a temporary directory)
	Keep     bool   // keep the database (a later run on the same Dir uses it as it is)
}

// Latency sums up the times of one kind of request, ms.
type Latency struct {
	N     int     `json:"n"`
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

// DirectoryResult is the JSON line `diperf bench directory` ends with.
type DirectoryResult struct {
	Bench     string  `json:"bench"`
	Sensors   int     `json:"sensors"`
	PairKinds int     `json:"pair_kinds"` // (src, dst, kind) with results: the latest table's rows
	Results   int64   `json:"results"`
	LoadS     float64 `json:"load_s"`   // the bulk load, indexes built
	DBBytes   int64   `json:"db_bytes"` // the database file and its WAL after the run
	Write     Latency `json:"write"`    // POST /v1/results, each on disk before its answer
	Metrics   Latency `json:"metrics"`  // GET /metrics, read whole
	// NetmapRead is the netmap query: what diperf netmap reads from the
	// directory (the sensors and the latest results, every page).
	NetmapRead   Latency `json:"netmap_read"`
	MetricsBytes int     `json:"metrics_bytes"`
	// NetmapS is one whole diperf netmap, after the rest: the query and
	// the map made from it (every ordered pair of live sensors, measured
	// or estimated), on the user's side; NetmapRows its rows.
	NetmapS    float64 `json:"netmap_s"`
	NetmapRows int     `json:"netmap_rows"`
}

// benchToken is the bench directory's bearer token.
var benchToken = []byte("bench-directory-token-0123456789abcdef")

// Directory runs the directory's benchmark, saying what it does on progress.
func Directory(ctx context.Context, o DirectoryOptions, progress io.Writer) (DirectoryResult, error) {
	r := DirectoryResult{Bench: "directory", Sensors: o.Synth.Sensors, Results: o.Synth.Results}
	dir, err := directoryDir(o.Dir)
	if err != nil {
		return r, err
	}
	if !o.Keep {
		defer os.RemoveAll(dir)
	}
	db := filepath.Join(dir, "directory.db")
	store, err := directory.OpenStore(db)
	if err != nil {
		return r, err
	}
	defer store.Close()
	if err := loadDirectory(ctx, o, store, db, &r, progress); err != nil {
		return r, err
	}
	fmt.Fprintf(progress, "bench directory: writes, scrapes and maps for %v\n", o.Duration)
	c, base, stop, err := serveBench(ctx, store)
	if err != nil {
		return r, err
	}
	defer stop()
	if err := directoryLoad(ctx, o, c, base, &r); err != nil {
		return r, err
	}
	for _, f := range []string{db, db + "-wal"} {
		if st, err := os.Stat(f); err == nil {
			r.DBBytes += st.Size()
		}
	}
	return r, nil
}

// directoryDir is dir, made if missing, or a new temporary directory.
func directoryDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "diperf-bench-directory-")
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// serveBench serves the store on a loopback port and returns a client of
// it, its URL and how to stop it.
func serveBench(ctx context.Context, store *directory.Store) (*directory.Client, string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		directory.Serve(sctx, ln, directory.NewServer(store, directory.Options{Token: benchToken}).Handler(), "", "") //nolint:errcheck // stopped by cancel
	}()
	base := "http://" + ln.Addr().String()
	c, err := directory.NewClient(base, benchToken, &http.Client{Timeout: 10 * time.Minute})
	return c, base, func() { cancel(); <-done }, err
}

// loadDirectory fills the store with o's mesh and history, unless it has
// results already (a database kept by an earlier run: its sensors are
// registered again for a day).
func loadDirectory(ctx context.Context, o DirectoryOptions, store *directory.Store, db string, r *DirectoryResult, progress io.Writer) error {
	n, pk, err := store.Counts(ctx)
	if err != nil || n > 0 {
		r.Results, r.PairKinds = n, int(pk)
		fmt.Fprintf(progress, "bench directory: %s holds %d results already: not loading\n", db, n)
		if err == nil {
			err = store.RegisterSynth(ctx, o.Synth, 24*time.Hour, time.Now())
		}
		return err
	}
	fmt.Fprintf(progress, "bench directory: loading %d results of %d sensors into %s\n", o.Synth.Results, o.Synth.Sensors, db)
	start := time.Now()
	if r.PairKinds, err = store.Synthesize(ctx, o.Synth, 24*time.Hour, time.Now()); err != nil {
		return err
	}
	r.LoadS = time.Since(start).Seconds()
	fmt.Fprintf(progress, "bench directory: loaded in %.1f s\n", r.LoadS)
	return nil
}
