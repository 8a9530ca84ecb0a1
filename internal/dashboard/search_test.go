package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/search"
)

// TestSearchAPI checks /api/search: {"search": false} while the run is
// not a search (200, so that the page may ask every second), then the
// search's state as live.Run.SetSearch last recorded it; the token is
// required, and the page's script is served.
func TestSearchAPI(t *testing.T) {
	r := fedRun(t)
	s := start(t, r, Options{})
	if code, body := authed(t, s, "/api/search"); code != 200 || strings.TrimSpace(body) != `{"search":false}` {
		t.Errorf("/api/search of a run that is not a search: %d %q", code, body)
	}
	lo, hi := 200.0, 210.0
	r.SetSearch(search.Result{Verdict: search.VerdictCapacity, Capacity: &lo, Interval: [2]*float64{&lo, &hi}, BreaksAt: &hi,
		Binding: "p99_ms < 30", Why: "capacity 200", Steps: []search.StepRecord{
			{Step: 1, Load: 200, Decision: search.Meets, Why: "every objective met"},
			{Step: 2, Load: 210, Decision: search.Fails, Binding: "p99_ms < 30"},
		}})
	code, body := authed(t, s, "/api/search")
	var got struct {
		Search bool `json:"search"`
		search.Result
	}
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
		t.Fatalf("/api/search: %d %v %q", code, err, body)
	}
	if !got.Search || got.Verdict != search.VerdictCapacity || len(got.Steps) != 2 || got.Steps[1].Load != 210 ||
		*got.Interval[0] != 200 || *got.Interval[1] != 210 {
		t.Errorf("/api/search: %+v", got)
	}
	if code, _ := get(t, http.DefaultClient, request(t, "http://"+s.Addr()+"/api/search")); code != http.StatusUnauthorized {
		t.Errorf("/api/search without the token: %d, want 401", code)
	}
	if code, body := authed(t, s, "/assets/search.js"); code != 200 || !strings.Contains(body, "api/search") {
		t.Errorf("/assets/search.js: %d", code)
	}
	if _, page := authed(t, s, "/"); !strings.Contains(page, `<section id="search" hidden>`) {
		t.Error("the page has no hidden search panel")
	}
}
