package dashboard

import (
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/diperf/diperf/internal/live"
)

// pageRefs are the page's own URLs: its scripts, styles and links.
var pageRefs = regexp.MustCompile(`(?:src|href)="([^"]+)"`)

// TestTokenStaysWithTheDashboard opens the dashboard's URL and every URL
// its page loads, as a browser does (a cookie jar that, like a browser's,
// does not keep cookies apart by port), then visits a server on another
// port of the same host: that server must never be sent the token.
// Before the fix the dashboard set a cookie with Path=/ holding the
// token, which the browser sent to every port of the host.
func TestTokenStaysWithTheDashboard(t *testing.T) {
	s := start(t, fedRun(t), Options{Token: "tok-of-the-dashboard-0123"})
	var mu sync.Mutex
	var leaks []string
	other := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for k, v := range r.Header {
			if strings.Contains(strings.Join(v, " "), s.Token()) {
				leaks = append(leaks, r.URL.Path+": "+k)
			}
		}
	}))
	defer other.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	code, page := get(t, c, request(t, s.URL()))
	if code != 200 {
		t.Fatalf("the page: %d", code)
	}
	base, _ := url.Parse(s.URL())
	refs := pageRefs.FindAllStringSubmatch(page, -1)
	if len(refs) < 7 {
		t.Fatalf("the page refers to %d URLs, want its 6 assets and the licence", len(refs))
	}
	for _, m := range refs {
		u, err := base.Parse(html.UnescapeString(m[1]))
		if err != nil || u.Scheme == "data" {
			continue
		}
		if code, _ := get(t, c, request(t, u.String())); code != 200 {
			t.Errorf("the page's %s: status %d", m[1], code)
		}
	}
	for _, path := range []string{"/", "/api/snapshot", "/events", "/assets/dashboard.js", "/report"} {
		get(t, c, request(t, other.URL+path))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaks) > 0 {
		t.Errorf("a server on another port of the host was sent the token: %v", leaks)
	}
}

// TestTokenInACookieIsNotEnough: a cookie holding the right token opens
// nothing (the dashboard keeps the token out of cookies).
func TestTokenInACookieIsNotEnough(t *testing.T) {
	s := start(t, live.New(live.Options{Name: "ck", Testers: 1}), Options{Token: "tok-0123456789abcdef"})
	_, port, _ := strings.Cut(s.Addr(), ":")
	for _, name := range []string{"diperf_token", "diperf_token_" + port} {
		req := request(t, "http://"+s.Addr()+"/api/snapshot")
		req.AddCookie(&http.Cookie{Name: name, Value: s.Token()})
		if code, _ := get(t, http.DefaultClient, req); code != http.StatusUnauthorized {
			t.Errorf("the token in cookie %s: status %d, want 401", name, code)
		}
	}
}
