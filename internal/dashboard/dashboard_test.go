package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/sample"
)

// fakeClock is a settable clock for live.Options.Now.
type fakeClock struct{ t time.Time }

func (f *fakeClock) now() time.Time { return f.t }

// base is the fake run's first second, Unix s.
const base = int64(1_700_000_000)

// fedRun returns a run of 3 planned testers on a fake clock now at
// base+6 s: tester 0 ran and made 10 ok calls of 20 ms ending in each of
// seconds base+1 … base+4 and 2 failed ones in base+2; tester 1 failed.
func fedRun(t *testing.T) *live.Run {
	t.Helper()
	clk := &fakeClock{t: time.Unix(base, 0)}
	r := live.New(live.Options{Name: "unit", Testers: 3, Now: clk.now})
	r.Event("admitted", 0, "hostA:101", "", clk.t.UnixNano())
	r.Event("started", 0, "", "", clk.t.UnixNano())
	r.Event("admitted", 1, "hostB:202", "", clk.t.UnixNano())
	r.Event("failed", 1, "", "lost connection", clk.t.UnixNano())
	var ss []sample.Sample
	for s := base + 1; s <= base+4; s++ {
		for i := range 10 {
			end := s*1e9 + int64(i)*50e6 + 30e6
			ss = append(ss, sample.Sample{Start: end - 20e6, End: end, Status: sample.OK})
		}
	}
	ss = append(ss, sample.Sample{Start: (base + 2) * 1e9, End: (base+2)*1e9 + 5e6, Status: sample.Failed, Err: "boom"},
		sample.Sample{Start: (base + 2) * 1e9, End: (base+2)*1e9 + 6e6, Status: sample.Failed, Err: "boom"})
	clk.t = time.Unix(base+6, 0)
	r.Add(0, ss, uint64(len(ss)), nil)
	r.Tick()
	return r
}

// start serves r's dashboard on a loopback port for the test.
func start(t *testing.T, r *live.Run, o Options) *Server {
	t.Helper()
	o.Addr = "127.0.0.1:0"
	s, err := Start(r, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// get sends req and returns its status and body.
func get(t *testing.T, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func request(t *testing.T, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestEveryRouteWantsTheToken(t *testing.T) {
	s := start(t, fedRun(t), Options{Token: "s3cret"})
	root := "http://" + s.Addr()
	for _, path := range []string{"/", "/api/snapshot", "/events", "/metrics", "/report", "/assets/dashboard.js"} {
		cases := map[string]*http.Request{"none": request(t, root+path), "wrong URL token": request(t, root+path+"?token=nope")}
		ck := request(t, root+path)
		ck.AddCookie(&http.Cookie{Name: "diperf_token", Value: s.Token()})
		cases["the token in a cookie"] = ck
		bearer := request(t, root+path)
		bearer.Header.Set("Authorization", "Bearer nope")
		cases["wrong bearer"] = bearer
		basic := request(t, root+path)
		basic.SetBasicAuth("x", "s3cret")
		cases["basic auth"] = basic
		for name, req := range cases {
			code, _ := get(t, http.DefaultClient, req)
			if code != http.StatusUnauthorized {
				t.Errorf("%s with %s: status %d, want 401", path, name, code)
			}
		}
	}
}

func TestTokenInURLSetsNoCookie(t *testing.T) {
	s := start(t, fedRun(t), Options{})
	if len(s.Token()) != 32 || !strings.HasSuffix(s.URL(), "/?token="+s.Token()) {
		t.Fatalf("random token %q, URL %q", s.Token(), s.URL())
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	code, body := get(t, c, request(t, s.URL()))
	if code != 200 || !strings.Contains(body, "<title>diperf live</title>") ||
		!strings.Contains(body, `src="assets/dashboard.js?token=`+s.Token()+`"`) {
		t.Fatalf("the page: %d %.80q", code, body)
	}
	u, _ := url.Parse(s.URL())
	if cookies := jar.Cookies(u); len(cookies) != 0 {
		t.Fatalf("cookies after opening the URL: %v", cookies)
	}
	req := request(t, "http://"+s.Addr()+"/api/snapshot")
	req.Header.Set("Authorization", "Bearer "+s.Token())
	if code, _ := get(t, http.DefaultClient, req); code != 200 {
		t.Errorf("/api/snapshot with the bearer token: status %d", code)
	}
}

// authed is a GET of path with the bearer token.
func authed(t *testing.T, s *Server, path string) (int, string) {
	t.Helper()
	req := request(t, "http://"+s.Addr()+path)
	req.Header.Set("Authorization", "Bearer "+s.Token())
	return get(t, http.DefaultClient, req)
}

func TestSnapshotIsTheRunsStateAsJSON(t *testing.T) {
	s := start(t, fedRun(t), Options{})
	code, body := authed(t, s, "/api/snapshot")
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var snap live.Snapshot
	if err := json.Unmarshal([]byte(body), &snap); err != nil {
		t.Fatal(err)
	}
	if snap.Name != "unit" || snap.State != "running" || snap.Planned != 3 || snap.NowNs != (base+6)*1e9 {
		t.Errorf("snapshot head %+v", snap)
	}
	ok := map[int64]uint64{}
	for _, sec := range snap.Seconds {
		ok[sec.T] = sec.OK
	}
	for sec := base + 1; sec <= base+4; sec++ {
		if ok[sec] != 10 {
			t.Errorf("second %d: %d ok, want 10", sec, ok[sec])
		}
	}
	if snap.Totals.ByClass["ok"] != 40 || snap.Totals.ByClass["failed"] != 2 || snap.States["failed"] != 1 || snap.States["running"] != 1 {
		t.Errorf("totals %+v, states %v", snap.Totals, snap.States)
	}
	if len(snap.Testers) != 2 || snap.Testers[0].Index != 1 || snap.Testers[0].State != "failed" || snap.Testers[1].Host != "hostA" {
		t.Errorf("testers (failed first) %+v", snap.Testers)
	}
}

func TestReportIsServedOnceWritten(t *testing.T) {
	p := filepath.Join(t.TempDir(), "report.html")
	s := start(t, fedRun(t), Options{Report: p})
	if code, _ := authed(t, s, "/report"); code != http.StatusNotFound {
		t.Errorf("/report before it is written: %d, want 404", code)
	}
	if err := os.WriteFile(p, []byte("<html>the report</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, body := authed(t, s, "/report"); code != 200 || body != "<html>the report</html>" {
		t.Errorf("/report: %d %q", code, body)
	}
}

// TestPromtoolChecksTheMetrics runs Prometheus' own linter on /metrics.
func TestPromtoolChecksTheMetrics(t *testing.T) {
	const promtool = "/usr/bin/promtool"
	if _, err := os.Stat(promtool); err != nil {
		t.Skipf("%s is absent", promtool)
	}
	s := start(t, fedRun(t), Options{})
	code, body := authed(t, s, "/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
