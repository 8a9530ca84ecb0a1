package e2e

import (
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/rundir"
)

// The docs' screenshots of the dashboard, written when DIPERF_UPDATE_DOCS
// is set.
const (
	dashLiveFigure  = "../docs/figures/dashboard-live.png"
	dashEndedFigure = "../docs/figures/dashboard-ended.png"
)

// dashURLRE finds the dashboard's URL in diperf's stderr.
var dashURLRE = regexp.MustCompile(`diperf: live dashboard: (http://\S+/\?token=([0-9a-f]+))`)

// pageState is what the dashboard page shows at one moment.
type pageState struct {
	Now     float64            `json:"now"` // the page's clock, Unix ms
	Updates int                `json:"updates"`
	State   string             `json:"state"`
	Seconds []pageSecond       `json:"seconds"` // of the last update
	CardT   string             `json:"cardT"`   // #c-tput's second
	Card    string             `json:"card"`    // #c-tput's text
	LastX   map[string]float64 `json:"lastX"`   // the end of each chart's x scale
	Painted map[string]int     `json:"painted"` // each chart's canvas pixels drawn
	Running int                `json:"running"`
	Rows    []pageRow          `json:"rows"`
	Report  string             `json:"report"` // the report link's href
	Ended   string             `json:"ended"`  // #report's text: the run ended, the link, the verdict
	Times   []string           `json:"times"`  // #c-rt's and #c-clock's texts
}

type pageSecond struct {
	T     int64 `json:"t"`
	OK    int   `json:"ok"`
	Final bool  `json:"final"`
}

type pageRow struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	Class string `json:"class"`
	State string `json:"state"`
}

const pageStateJS = `(() => {
	const d = window.diperf || {}, last = d.last || {};
	const lastX = {};
	const painted = {};
	for (const [k, c] of Object.entries(d.charts || {})) {
		lastX[k] = c.u.scales.x.max == null ? -1 : c.u.scales.x.max;
		const cv = c.u.root.querySelector('canvas');
		const px = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
		let n = 0;
		for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
		painted[k] = n;
	}
	const card = document.getElementById('c-tput'), link = document.getElementById('report-link');
	return {now: Date.now(), updates: d.updates || 0, state: last.state || '',
		seconds: (last.seconds || []).map(s => ({t: s.t, ok: s.ok, final: s.final})),
		cardT: card.dataset.t || '', card: card.textContent, lastX, painted,
		running: (last.states || {}).running || 0,
		rows: [...document.querySelectorAll('#testers tbody tr')].map(tr => ({index: +tr.dataset.index,
			id: tr.children[1].textContent, class: tr.className, state: tr.children[3].textContent})),
		report: link ? link.getAttribute('href') : '',
		ended: (document.getElementById('report') || {}).textContent || '',
		times: ['c-rt', 'c-clock'].map(id => document.getElementById(id).textContent)};
})()`

// dashPage reads the page's state.
func dashPage(t *testing.T, ctx context.Context) pageState {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](pageStateJS))
	if err != nil {
		t.Fatalf("read the dashboard: %v", err)
	}
	return s
}

// dashWait polls the page every 100 ms until ok holds of it (or fails
// the test after timeout) and returns its state then.
func dashWait(t *testing.T, ctx context.Context, timeout time.Duration, what string, ok func(pageState) bool) pageState {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := dashPage(t, ctx)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard did not show %s within %v: %+v", what, timeout, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// seen is the throughput the page showed for second t.
type seen struct {
	t    int64
	ok   int
	from string // "final second", "card"
}

// TestDashboardInChromium runs a demo with its dashboard on and watches
// it in headless Chromium while it runs: the page loads without a console
// error; it is updated every second and so is every chart; the
// throughput it shows for each second is quanta.csv's; a tester killed
// with SIGKILL is shown failed within 3 s; when the run ends the page
// links the report, which the dashboard serves.
func TestDashboardInChromium(t *testing.T) {
	if _, err := os.Stat(browser.Chromium); err != nil {
		t.Skipf("%s is absent: %v", browser.Chromium, err)
	}
	out := filepath.Join(t.TempDir(), "demo")
	// The page is watched from when 3 testers run (2 s after the first
	// starts) for 8 s, then a running tester is killed and must be shown
	// failed within 3 s: 13 s after the first tester started. 16 s of
	// testers keep every one of them running until then, with a margin.
	run := startRun(t, "demo", "--out", out, "--ui", "127.0.0.1:0", "--ui-linger", "2m", "--testers", "6",
		"--tester-start-interval", "1s", "--tester-duration", "16s", "--workers", "6", "--service-time", "100ms")
	url, token := dashURL(t, run)
	ctx, con := browser.New(t, 3*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	dashWait(t, ctx, 30*time.Second, "3 testers running", func(s pageState) bool { return s.Running >= 3 })
	dashNoCookie(t, ctx)

	var shown []seen
	shown = append(shown, dashCadence(t, ctx, 8)...)
	dashCardTimes(t, dashPage(t, ctx))
	killed, victim := dashKill(t, ctx)
	s := dashWait(t, ctx, 10*time.Second, "the killed tester failed", func(s pageState) bool {
		return rowFailed(s, victim)
	})
	delay := time.UnixMilli(int64(s.Now)).Sub(killed)
	t.Logf("tester %d shown failed %v after its kill", victim, delay.Round(10*time.Millisecond))
	if delay > 3*time.Second {
		t.Errorf("tester %d shown failed %v after its kill, want within 3 s", victim, delay)
	}
	dashShot(t, ctx, dashLiveFigure)
	for {
		s := dashPage(t, ctx)
		shown = append(shown, shownOf(s)...)
		if s.State == "ended" {
			break
		}
		select {
		case <-run.done:
			t.Fatalf("the demo exited before its dashboard said it ended\n%s", run.stderr.String())
		case <-time.After(time.Second):
		}
	}
	s = dashWait(t, ctx, 60*time.Second, "the report link", func(s pageState) bool { return s.Report != "" })
	shown = append(shown, shownOf(s)...)
	if s.Report != "report?token="+token {
		t.Errorf("the report link is %q, want report?token=%s (the page's token, never a cookie)", s.Report, token)
	}
	dashReport(t, ctx, url, token, out)
	dashVerdict(t, ctx, out)
	dashShot(t, ctx, dashEndedFigure)
	for _, e := range con.Errors() {
		t.Errorf("the page logged: %s", e)
	}
	_ = run.cmd.Process.Signal(syscall.SIGINT) // ends the linger
	run.wait(t, time.Minute)
	dashCheckQuanta(t, out, shown)
}

// dashURL waits for the run to print its dashboard's URL.
func dashURL(t *testing.T, run *background) (url, token string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := dashURLRE.FindStringSubmatch(run.stderr.String()); m != nil {
			return m[1], m[2]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no dashboard URL on stderr:\n%s", run.stderr.String())
	return "", ""
}

// dashCadence watches the page for n seconds: it must get at least n−2
// updates and every chart must be drawn and its x scale grow; it returns the throughput it showed.
func dashCadence(t *testing.T, ctx context.Context, n int) []seen {
	t.Helper()
	first := dashPage(t, ctx)
	shown := shownOf(first)
	start := time.Now()
	var last pageState
	for time.Since(start) < time.Duration(n)*time.Second {
		time.Sleep(time.Second)
		last = dashPage(t, ctx)
		shown = append(shown, shownOf(last)...)
	}
	got := last.Updates - first.Updates
	for k, n := range last.Painted {
		if n < 2000 {
			t.Errorf("chart %s: %d pixels painted", k, n)
		}
	}
	t.Logf("%d updates in %v", got, time.Since(start).Round(10*time.Millisecond))
	if got < n-2 || got > n+2 {
		t.Errorf("the page got %d updates in %d s, want one a second", got, n)
	}
	for k, x := range first.LastX {
		if last.LastX[k] < x+float64(n-3) {
			t.Errorf("chart %s's x scale ended at %v, then at %v %d s later", k, x, last.LastX[k], n)
		}
	}
	if len(first.LastX) != 4 {
		t.Errorf("the page has charts %v, want 4", first.LastX)
	}
	return shown
}

// shownOf is the throughput of s: its final seconds and its card.
func shownOf(s pageState) []seen {
	var out []seen
	for _, sec := range s.Seconds {
		if sec.Final {
			out = append(out, seen{sec.T, sec.OK, "final second"})
		}
	}
	if t, err := strconv.ParseInt(s.CardT, 10, 64); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(s.Card)); err == nil {
			out = append(out, seen{t, v, "card"})
		}
	}
	return out
}

// dashKill kills, with SIGKILL, a running tester the page lists, found
// by the pid in its id (host:pid), and returns when and which.
func dashKill(t *testing.T, ctx context.Context) (time.Time, int) {
	t.Helper()
	for _, r := range dashPage(t, ctx).Rows {
		if r.Class != "running" {
			continue
		}
		pid, err := strconv.Atoi(r.ID[strings.LastIndexByte(r.ID, ':')+1:])
		if err != nil {
			t.Fatalf("tester %d's id %q has no pid", r.Index, r.ID)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill tester %d (pid %d): %v", r.Index, pid, err)
		}
		return time.Now(), r.Index
	}
	t.Fatal("the page lists no running tester")
	return time.Time{}, 0
}

func rowFailed(s pageState, index int) bool {
	for _, r := range s.Rows {
		if r.Index == index {
			return r.Class == "failed" && r.State == "FAILED"
		}
	}
	return false
}

// dashReport checks that the page's report link serves report.html, as
// the browser (the token in the link) and a script (with the bearer token) get it.
func dashReport(t *testing.T, ctx context.Context, url, token, out string) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(out, rundir.Report))
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`fetch(document.getElementById('report-link').href).then(r => r.ok ? r.text() : 'status ' + r.status)`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the report link served %d bytes (%.40q), report.html has %d", len(got), got, len(want))
	}
	req, _ := http.NewRequest("GET", strings.Split(url, "?")[0]+"report", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != string(want) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/report with the bearer token: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
	}
}

// dashShot screenshots the page into a temporary file, checks it, and
// keeps it as the docs' figure when DIPERF_UPDATE_DOCS is set.
func dashShot(t *testing.T, ctx context.Context, figure string) {
	t.Helper()
	shot := filepath.Join(t.TempDir(), filepath.Base(figure))
	browser.Screenshot(ctx, t, shot)
	checkPNG(t, shot)
	if os.Getenv("DIPERF_UPDATE_DOCS") != "" {
		b, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(figure, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// dashCheckQuanta compares what the page showed with quanta.csv: the
// page's value for second t must be quanta.csv's at t, t−1 or t+1 (within
// one quantum: a call ending near a second's edge may fall on either side
// between the live mapping of a tester's clock and the analysis'); most
// must be exactly at t.
func dashCheckQuanta(t *testing.T, out string, shown []seen) {
	t.Helper()
	s := readSummary(t, out)
	if s.QuantumS != 1 {
		t.Fatalf("quantum %v s, want 1", s.QuantumS)
	}
	if s.OriginNs%1e9 != 0 {
		t.Errorf("origin %d ns is not on a Unix second: quanta and live seconds differ", s.OriginNs)
	}
	q := map[int64]int{}
	for _, r := range readCSV(t, filepath.Join(out, rundir.Quanta), "t_s", "ok", "throughput").rows {
		sec := s.OriginNs/1e9 + int64(math.Round(r.float(t, "t_s")))
		q[sec] = r.int(t, "ok")
		if tp := r.float(t, "throughput"); tp != float64(r.int(t, "ok")) {
			t.Errorf("quanta.csv at %d: throughput %v, ok %d", sec, tp, r.int(t, "ok"))
		}
	}
	exact, near := 0, 0
	for _, v := range shown {
		switch {
		case q[v.t] == v.ok:
			exact++
		case q[v.t-1] == v.ok || q[v.t+1] == v.ok:
			near++
		default:
			t.Errorf("the page showed %d calls/s for second %d (%s); quanta.csv has %d, %d, %d at %d−1…+1",
				v.ok, v.t, v.from, q[v.t-1], q[v.t], q[v.t+1], v.t)
		}
	}
	t.Logf("throughput shown %d times: %d exactly quanta.csv's, %d its neighbour's", len(shown), exact, near)
	if len(shown) < 15 || exact < len(shown)*9/10 {
		t.Errorf("%d of %d throughputs shown are quanta.csv's at the same second", exact, len(shown))
	}
}
