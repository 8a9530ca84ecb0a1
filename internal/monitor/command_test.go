package monitor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// sdiag is the part of Slurm's sdiag output a jobs case reads; a second
// "Jobs completed" line (another section) must not be the one read.
const sdiag = `*******************************************************
sdiag output at Thu Nov 26 23:10:00 2026 (1795734600)
Data since      Thu Nov 26 23:00:00 2026 (1795734000)
*******************************************************
Server thread count:  3
Jobs submitted: 42
Jobs started:   40
Jobs completed: 37
Jobs canceled:  0

Backfilling stats
	Jobs completed: 99
`

// commandScrape scrapes a command endpoint once with LocalExec; it
// returns the points and the failure the scraper logged ("" none).
func commandScrape(t *testing.T, interval time.Duration, src experiment.CommandSource, globs ...string) ([]Point, string) {
	t.Helper()
	var c collect
	var msg string
	s := &Scraper{Sink: c.sink, Now: time.Now, Log: func(f string, a ...any) { msg = fmt.Sprintf(f, a...) }}
	s.once(context.Background(), Endpoint{Name: "e", Format: experiment.FormatCommand, Interval: interval,
		Metrics: globs, MaxSeries: 2, Command: &src})
	return c.pts, msg
}

// valueOf is metric's value among pts (-1: none).
func valueOf(pts []Point, metric string) float64 {
	for _, p := range pts {
		if p.Metric == metric {
			return p.Value
		}
	}
	return -1
}

// sh is argv that runs script in sh.
func sh(script string) []string { return []string{"sh", "-c", script} }

// Each counter is the number in the first line its pattern matches, a
// series named as the counter with no labels.
func TestCommandCounters(t *testing.T) {
	t.Parallel()
	pts, msg := commandScrape(t, time.Minute, experiment.CommandSource{Argv: sh("cat <<'X'\n" + sdiag + "X\n"),
		Counters: map[string]string{"jobs_submitted": `^Jobs submitted:\s+(\d+)$`, "jobs_completed": `Jobs completed:\s*(\d+)`}})
	if msg != "" || upOf(pts) != 1 {
		t.Fatalf("up %v, failure %q; want a good scrape", upOf(pts), msg)
	}
	if valueOf(pts, "jobs_submitted") != 42 || valueOf(pts, "jobs_completed") != 37 {
		t.Errorf("points %+v; want jobs_submitted 42 and jobs_completed 37 (the first match)", pts)
	}
	for _, p := range pts {
		if p.Labels != "" {
			t.Errorf("%s has labels %q; want none", p.Metric, p.Labels)
		}
	}
	if valueOf(pts, ScrapeDuration) <= 0 {
		t.Errorf("scrape duration %v; want the command's run time", valueOf(pts, ScrapeDuration))
	}
}

// A failed command is a failed scrape (up 0, no counter) that says why;
// never the run's failure.
func TestCommandFailures(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxLine+1)
	completed := map[string]string{"jobs_completed": `Jobs completed:\s*(\d+)`}
	tests := []struct {
		name, script string
		counters     map[string]string
		want         []string
	}{
		{"exit 1", "echo 'Jobs completed: 3'; echo 'sdiag: error: Unable to contact slurm controller' >&2; exit 1", completed,
			[]string{"command sh: exit status 1: sdiag: error: Unable to contact slurm controller"}},
		{"missing", "echo 'Jobs started: 3'", map[string]string{"jobs_completed": `Jobs completed: (\d+)`, "jobs_started": `Jobs started: (\d+)`},
			[]string{"no line of the output matches counter jobs_completed", `Jobs completed: (\\d+)`}},
		{"not finite", "echo 'Jobs completed: NaN'", map[string]string{"jobs_completed": `Jobs completed: (\S+)`},
			[]string{"counter jobs_completed", `"NaN" is not a finite number`}},
		{"infinite", "echo 'Jobs completed: 1e999'", map[string]string{"jobs_completed": `Jobs completed: (\S+)`},
			[]string{"counter jobs_completed", "not a finite number"}},
		{"10 MiB", "yes 'Jobs completed: 1' | head -c 10485760", completed, []string{"output larger than 1 MiB"}},
		{"long line", "echo " + long + "; echo 'Jobs completed: 1'", completed, []string{"line 1 is longer than 65536 bytes"}},
		{"no such command", "", completed, []string{"command /nonexistent/sdiag", "no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			argv := sh(tt.script)
			if tt.script == "" {
				argv = []string{"/nonexistent/sdiag"}
			}
			start := time.Now()
			pts, msg := commandScrape(t, time.Minute, experiment.CommandSource{Argv: argv, Counters: tt.counters})
			if upOf(pts) != 0 || len(pts) != 2 {
				t.Errorf("points %+v; want only up 0 and the duration", pts)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("failure %q; want it to say %q", msg, w)
				}
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// A command that outlives the scrape's timeout (9/10 of the interval) is
// killed: the scrape fails in about that time and says so.
func TestCommandTimeoutKills(t *testing.T) {
	t.Parallel()
	start := time.Now()
	pts, msg := commandScrape(t, 500*time.Millisecond, experiment.CommandSource{Argv: sh("echo 'Jobs completed: 1'; sleep 30"),
		Counters: map[string]string{"jobs_completed": `Jobs completed: (\d+)`}})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("scrape took %v; want the 450ms timeout and the kill grace", d)
	}
	if upOf(pts) != 0 || !strings.Contains(msg, "did not finish within 450ms, killed") {
		t.Errorf("up %v, failure %q; want up 0 and the timeout named", upOf(pts), msg)
	}
}

// prometheus: true reads the output as a page: metrics and max_series
// choose its series, labels kept.
func TestCommandPrometheusText(t *testing.T) {
	t.Parallel()
	page := "# TYPE unbound_queries_total counter\nunbound_queries_total{thread=\"0\"} 10\nunbound_queries_total{thread=\"1\"} 5\n" +
		"unbound_cache_hits_total 7\nother_metric 1\n"
	pts, msg := commandScrape(t, time.Minute, experiment.CommandSource{Argv: sh("printf '%s' '" + page + "'"), Prometheus: true}, "unbound_*")
	if msg != "" || upOf(pts) != 1 {
		t.Fatalf("up %v, failure %q", upOf(pts), msg)
	}
	var got []string
	for _, p := range pts {
		if p.Metric != Up && p.Metric != ScrapeDuration && p.Metric != SeriesDropped {
			got = append(got, fmt.Sprintf("%s{%s} %g", p.Metric, p.Labels, p.Value))
		}
	}
	want := `unbound_cache_hits_total{} 7,unbound_queries_total{thread="0"} 10`
	if strings.Join(got, ",") != want || valueOf(pts, SeriesDropped) != 2 {
		t.Errorf("series %v, dropped %v; want %s and 2 dropped (max_series 2, other_metric not chosen)", got, valueOf(pts, SeriesDropped), want)
	}
	pts, msg = commandScrape(t, time.Minute, experiment.CommandSource{Argv: sh("echo 'not a { page'"), Prometheus: true})
	if upOf(pts) != 0 || !strings.Contains(msg, "parse Prometheus text: line 1") {
		t.Errorf("up %v, failure %q; want a malformed page refused", upOf(pts), msg)
	}
}
