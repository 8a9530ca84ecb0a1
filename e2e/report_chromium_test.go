package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/report"
	"github.com/diperf/diperf/internal/rundir"
)

// chromium is apt's Chromium, which the report must open in.
const chromium = "/usr/bin/chromium"

// TestReportInChromium makes a real run directory with a short demo and
// opens its report in headless Chromium: the page loads without a console
// message (Chromium reports malformed SVG there), every graph is in the
// DOM, a screenshot of it is a real PNG, and each graph's .svg file beside
// the report opens on its own too. Its Chromiums (each its own process
// and profile, each as busy waiting as working) run 3 at a time.
func TestReportInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is absent: %v", chromium, err)
	}
	out := filepath.Join(t.TempDir(), "demo")
	args := []string{"demo", "--out", out, "--testers", "4", "--tester-duration", "4s", "--tester-start-interval", "500ms"}
	if os.Getenv("DIPERF_UPDATE_DOCS") != "" { // a run long enough for the docs' screenshot
		args = []string{"demo", "--out", out, "--testers", "10", "--tester-duration", "20s", "--tester-start-interval", "1500ms"}
	}
	r := diperf(t, 2*time.Minute, args...)
	if r.code != 0 {
		t.Fatalf("demo: exit %d\n%s", r.code, r.stderr)
	}
	checkRunDir(t, out)
	page := filepath.Join(out, rundir.Report)

	shot := filepath.Join(t.TempDir(), "report.png")
	opens := [][]string{{"--dump-dom", "file://" + page}, {"--window-size=1000,4200", "--hide-scrollbars", "--screenshot=" + shot, "file://" + page}}
	var graphs []string // the ids whose .svg file is opened, from opens[2] on
	for _, id := range report.GraphIDs() {
		file := filepath.Join(out, id+".svg")
		if st, err := os.Stat(file); err != nil || st.Size() == 0 {
			t.Errorf("run directory lacks a non-empty %s.svg (%v)", id, err)
			continue
		}
		graphs = append(graphs, id)
		opens = append(opens, []string{"--dump-dom", "file://" + file})
	}
	doms := openAllInChromium(t, 3, opens)
	for _, id := range report.GraphIDs() {
		if !strings.Contains(doms[0], `<svg id="`+id+`"`) {
			t.Errorf("the page Chromium loaded lacks graph %q", id)
		}
	}
	checkPNG(t, shot)
	for i, id := range graphs {
		if !strings.Contains(doms[2+i], `id="`+id+`"`) {
			t.Errorf("Chromium did not load the graph in %s.svg", id)
		}
	}

	t.Run("interactive", func(t *testing.T) { checkInteractive(t, page, interactiveCharts(t, page), true) })
}

// openAllInChromium runs headless Chromium once for each args, at most
// n at a time, each with a profile of its own; it requires each to
// succeed without any console message from the page, and returns their
// stdouts, in the order of opens.
func openAllInChromium(t *testing.T, n int, opens [][]string) []string {
	t.Helper()
	runs := make([]chromiumRun, len(opens))
	limit := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, args := range opens {
		profile := t.TempDir()
		wg.Go(func() {
			limit <- struct{}{}
			defer func() { <-limit }()
			runs[i] = runChromium(profile, args)
		})
	}
	wg.Wait()
	out := make([]string, len(runs))
	for i, r := range runs {
		switch {
		case r.timedOut:
			t.Fatalf("chromium %v did not finish within 60 s\n%s", opens[i], r.stderr)
		case r.err != nil:
			t.Fatalf("chromium %v: %v\n%s", opens[i], r.err, r.stderr)
		}
		for _, line := range pageMessages(r.stderr) {
			t.Errorf("chromium %v: the page logged: %s", opens[i], line)
		}
		out[i] = r.stdout
	}
	return out
}

// chromiumRun is what one headless Chromium did.
type chromiumRun struct {
	stdout, stderr string
	err            error
	timedOut       bool // not done within 60 s
}

// runChromium runs headless Chromium with args and the profile directory
// profile, for at most 60 s.
func runChromium(profile string, args []string) chromiumRun {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return chromiumRun{stdout: stdout.String(), stderr: stderr.String(), err: err, timedOut: ctx.Err() != nil}
}

// pageMessages returns the lines of Chromium's log that come from the
// page: console messages (SVG and HTML errors are reported there) and
// uncaught exceptions. Chromium's own noise (D-Bus, GPU, sandbox) is left
// out.
func pageMessages(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			out = append(out, line)
		}
	}
	return out
}

// checkPNG fails the test unless path is a PNG image of some size.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 20_000 {
		t.Errorf("screenshot %s is not a PNG of a drawn page (%d bytes)", path, len(b))
	}
}
