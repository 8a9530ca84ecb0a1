package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/directory/directorytest"
)

// A directory whose answer goes on past the first page, but not in a
// way the client can follow, makes netmap fail, saying so, not print a
// map with the rest left out (issue 21 row 10: the map stopped at the
// first 1,000 results and exited 0).
func TestNetmapFailsOnAnAnswerItCannotReadWhole(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/sensors":
			w.Write([]byte(`[{"name":"a","address":"127.0.0.1:1","groups":["local"],"version":"1","capabilities":[],"state":"live"},
				{"name":"b","address":"127.0.0.1:2","groups":["local"],"version":"1","capabilities":[],"state":"live"}]`)) //nolint:errcheck // the client went away
		default:
			w.Header().Set("Diperf-Next-Cursor", "always-the-same")
			w.Write([]byte(`[{"src":"a","dst":"b","kind":"bandwidth","bandwidth_bps":1e6,"test_time_s":1,"measured_at":"2026-11-23T06:00:00Z","busy":0,"missed":0}]`)) //nolint:errcheck // the client went away
		}
	}))
	defer srv.Close()
	tf := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tf, directorytest.Token, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"netmap", "--directory", srv.URL, "--token-file", tf, "--json"}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "does not move on") {
		t.Errorf("netmap of an answer it cannot page through: exit %d, stdout %q, stderr %q; want a failure saying why", code, out.String(), errb.String())
	}
}
