package dashboard

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerdictIsServedOnceAnalyzed checks that the dashboard gives the
// run's saturation verdict in the summary's words once summary.json is
// written beside the report, and refuses a summary that is not JSON.
func TestVerdictIsServedOnceAnalyzed(t *testing.T) {
	dir := t.TempDir()
	s := start(t, fedRun(t), Options{Report: filepath.Join(dir, "report.html")})
	if code, _ := authed(t, s, "/api/verdict"); code != http.StatusNotFound {
		t.Errorf("/api/verdict before the summary is written: %d, want 404", code)
	}
	sum := `{"saturation":{"saturated":false,"load":6,"throughput":57,"verdict":"not_saturated","capacity_at_least":54}}`
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(sum), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "not saturated within the tested range (capacity ≥ 54.0 calls/s)"
	if code, body := authed(t, s, "/api/verdict"); code != 200 || !strings.Contains(body, want) {
		t.Errorf("/api/verdict: %d %q, want %q", code, body, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte("{\"saturation\": 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _ := authed(t, s, "/api/verdict"); code != http.StatusInternalServerError {
		t.Errorf("/api/verdict of a broken summary: %d, want 500", code)
	}
	if code, _ := get(t, http.DefaultClient, request(t, "http://"+s.Addr()+"/api/verdict")); code != http.StatusUnauthorized {
		t.Errorf("/api/verdict without the token: %d, want 401", code)
	}
}
