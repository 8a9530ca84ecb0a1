package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// the report opens on its own too.
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

	dom := openInChromium(t, "--dump-dom", "file://"+page)
	for _, id := range report.GraphIDs() {
		if !strings.Contains(dom, `<svg id="`+id+`"`) {
			t.Errorf("the page Chromium loaded lacks graph %q", id)
		}
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	openInChromium(t, "--window-size=1000,4200", "--hide-scrollbars", "--screenshot="+shot, "file://"+page)
	checkPNG(t, shot)

	t.Run("interactive", func(t *testing.T) { checkInteractive(t, page, interactiveCharts(t, page), true) })

	for _, id := range report.GraphIDs() {
		file := filepath.Join(out, id+".svg")
		if st, err := os.Stat(file); err != nil || st.Size() == 0 {
			t.Errorf("run directory lacks a non-empty %s.svg (%v)", id, err)
			continue
		}
		if dom := openInChromium(t, "--dump-dom", "file://"+file); !strings.Contains(dom, `id="`+id+`"`) {
			t.Errorf("Chromium did not load the graph in %s.svg", id)
		}
	}
}

// openInChromium runs headless Chromium with args, requires it to succeed
// without any console message from the page, and returns its stdout.
func openInChromium(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("chromium %v did not finish within 60 s\n%s", args, stderr.String())
	}
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	for _, line := range pageMessages(stderr.String()) {
		t.Errorf("chromium %v: the page logged: %s", args, line)
	}
	return stdout.String()
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
