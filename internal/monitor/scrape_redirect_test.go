package monitor

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// serveOn serves h on addr (a loopback HOST:0) until the test ends and
// returns its base URL.
func serveOn(t *testing.T, addr string, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// scrapeOnce scrapes url once with the default HTTP fetch and returns the
// points and whether the scrape was counted as failed.
func scrapeOnce(t *testing.T, url string) ([]Point, bool) {
	t.Helper()
	var c collect
	s := &Scraper{Sink: c.sink, Now: time.Now, Fetch: httpGet}
	s.once(context.Background(), Endpoint{Name: "e", URL: url, Format: experiment.FormatPrometheus, Interval: time.Minute})
	return c.pts, s.Errors()["e"] == 1
}

// upOf is the up value among pts (-1: none).
func upOf(pts []Point) float64 {
	for _, p := range pts {
		if p.Metric == Up {
			return p.Value
		}
	}
	return -1
}

// TestRedirectToAnotherHostIsNotFollowed: an endpoint that redirects to
// another host (127.0.0.2) or another port of its own is a failed scrape
// that says why, and the other server is never asked; a redirect within
// the endpoint's own origin is followed, a few times at most.
func TestRedirectToAnotherHostIsNotFollowed(t *testing.T) {
	var asked atomic.Int32
	other := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte("secret_metric 42\n"))
	})
	elsewhere := serveOn(t, "127.0.0.2:0", other)
	otherPort := serveOn(t, "127.0.0.1:0", other)
	mux := http.NewServeMux()
	mux.Handle("/away", http.RedirectHandler(elsewhere+"/metrics", http.StatusFound))
	mux.Handle("/port", http.RedirectHandler(otherPort+"/metrics", http.StatusMovedPermanently))
	mux.Handle("/moved", http.RedirectHandler("/metrics", http.StatusTemporaryRedirect))
	mux.Handle("/loop", http.RedirectHandler("/loop", http.StatusFound))
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("own_metric 1\n")) })
	base := serveOn(t, "127.0.0.1:0", mux)

	for _, path := range []string{"/away", "/port", "/loop"} {
		pts, failed := scrapeOnce(t, base+path)
		if !failed || upOf(pts) != 0 {
			t.Errorf("%s: failed %v, up %v; want a failed scrape", path, failed, upOf(pts))
		}
		for _, p := range pts {
			if p.Metric == "secret_metric" {
				t.Errorf("%s: another server's metric stored under the endpoint's name: %+v", path, p)
			}
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the other servers were asked %d times", n)
	}
	pts, failed := scrapeOnce(t, base+"/moved")
	if failed || upOf(pts) != 1 || len(pts) != 3 || pts[0].Metric != "own_metric" {
		t.Errorf("a redirect within the endpoint: failed %v, points %+v; want own_metric", failed, pts)
	}
}

// TestRedirectRefusalSaysWhy: the reason of a refused redirect names
// where it led.
func TestRedirectRefusalSaysWhy(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/away", http.RedirectHandler("http://127.0.0.2:9/metrics", http.StatusFound))
	base := serveOn(t, "127.0.0.1:0", mux)
	body, err := httpGet(context.Background(), base+"/away")
	if body != nil {
		body.Close()
	}
	if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), "127.0.0.2:9") {
		t.Errorf("error %v; want ErrRedirect naming 127.0.0.2:9", err)
	}
}

// TestScrapeInFlightAtTheEndIsNotAFailure: a scrape the run's end cuts
// short is neither a failed scrape nor an up 0 row; the last scrape
// after the end is made and succeeds.
func TestScrapeInFlightAtTheEndIsNotAFailure(t *testing.T) {
	first := make(chan struct{})
	var n atomic.Int32
	base := serveOn(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			close(first)
			<-r.Context().Done() // the first answer never comes: the run ends while it is awaited
			return
		}
		_, _ = w.Write([]byte("c_total 5\n"))
	}))
	var c collect
	s := &Scraper{Sink: c.sink, Endpoints: []Endpoint{{Name: "e", URL: base + "/metrics", Format: experiment.FormatPrometheus, Interval: time.Minute}}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-first; cancel() }()
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if e := s.Errors()["e"]; e != 0 {
		t.Errorf("%d failed scrapes, want 0: the one the end cut short is not a failure", e)
	}
	if got := s.Cancelled()["e"]; got != 1 {
		t.Errorf("%d scrapes cancelled, want 1", got)
	}
	if up := upOf(c.pts); up != 1 || len(c.pts) != 3 {
		t.Errorf("points %+v; want only the last scrape's, up 1", c.pts)
	}
}

// TestHugeHeaderIsRefused: a page whose response header is 1 MB is a
// failed scrape (net/http alone takes up to 10 MB of header).
func TestHugeHeaderIsRefused(t *testing.T) {
	base := serveOn(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := range 16 {
			w.Header().Set("X-Pad-"+strconv.Itoa(i), strings.Repeat("p", 64<<10))
		}
		_, _ = w.Write([]byte("m 1\n"))
	}))
	pts, failed := scrapeOnce(t, base+"/metrics")
	if !failed || upOf(pts) != 0 {
		t.Errorf("a 1 MB header: failed %v, up %v; want a failed scrape", failed, upOf(pts))
	}
}
