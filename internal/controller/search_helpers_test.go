package controller

import (
	"context"
	"encoding/csv"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
	"github.com/diperf/diperf/internal/target"
	"github.com/diperf/diperf/internal/transport"
)

// serveTarget serves the demo service with workers calls at once, each
// holding its worker for service (capacity workers/service calls/s), on
// loopback until the test ends; it returns its URL.
func serveTarget(t *testing.T, workers int, service time.Duration) string {
	t.Helper()
	srv, err := target.New(target.Config{Workers: workers, ServiceTime: service, Dist: target.DistFixed, Queue: 4096})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = target.Serve(ctx, ln, srv); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String() + "/call"
}

// searchExperiment is testers testers calling url with the built-in HTTP
// client for at most duration: an open model (uniform arrivals, its rate
// set by the search) when open, else a closed one of clients per tester.
func searchExperiment(t *testing.T, testers, clients int, duration time.Duration, url string, open bool) *experiment.Experiment {
	t.Helper()
	e := testExperiment(t, testers, duration)
	e.Client.Exec = nil
	e.Client.HTTP = &experiment.HTTPClient{URL: url}
	e.Client.Timeout = experiment.Duration(2 * time.Second)
	e.Schedule.ClientsPerTester = clients
	if open {
		e.Schedule.Rate = &experiment.Rate{Target: 1}
	}
	if p := e.Validate(); len(p) > 0 {
		t.Fatal(p)
	}
	return e
}

// runSearch runs exp as a search of cfg with in-process testers and
// returns the outcome, the run directory and how long it took.
func runSearch(t *testing.T, exp *experiment.Experiment, cfg search.Config) (*Outcome, string, time.Duration) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	o := inprocOptions(exp, dir, newInproc(transport.NewMemory()))
	o.Search = &cfg
	o.Live = live.New(live.Options{Name: exp.Name, Testers: exp.Schedule.Testers})
	start := time.Now()
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("the search run failed: %v", err)
	}
	if r, ok := o.Live.Search(); !ok || out.Search == nil || r.Verdict != out.Search.Verdict || len(r.Steps) != len(out.Search.Steps) {
		t.Errorf("the live view's search %+v, want the answer %+v", r, out.Search)
	}
	return out, dir, time.Since(start)
}

// mustSLOs parses SLO texts.
func mustSLOs(t *testing.T, texts ...string) []search.SLO {
	t.Helper()
	s, err := search.ParseSLOs(texts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eventsNamed is the details of dir's events called name, by tester
// (-1: the run's).
func eventsNamed(t *testing.T, dir, name string) map[int][]string {
	t.Helper()
	out := map[int][]string{}
	for _, e := range events(t, dir) {
		if e.Event != name {
			continue
		}
		slot := -1
		if e.Slot != nil {
			slot = *e.Slot
		}
		out[slot] = append(out[slot], e.Detail)
	}
	return out
}

// readSearchCSV reads dir's search.csv by header: its rows as maps.
func readSearchCSV(t *testing.T, dir string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, rundir.SearchCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("search.csv: %v (%d rows)", err, len(rows))
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// stoppedBySearch reports whether every stop sent in dir's run was the
// search's end.
func stoppedBySearch(t *testing.T, dir string, testers int) bool {
	t.Helper()
	stops := eventsNamed(t, dir, "stop-sent")
	for i := range testers {
		if len(stops[i]) != 1 || !strings.Contains(stops[i][0], "the search ended") {
			return false
		}
	}
	return true
}
