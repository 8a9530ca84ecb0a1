// Package directorytest runs a sensor directory in process for tests: a
// real directory.Server over a SQLite file in the test's temporary
// directory, behind an httptest server.
package directorytest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/diperf/diperf/internal/directory"
)

// Token is the directory's token.
var Token = []byte("a-mesh-token-of-32-bytes-or-more!")

// Start serves a new directory until the test ends and returns its URL and
// a client of it. wrap, if not nil, stands in front of the directory's
// handler (to make it fail, or count requests).
func Start(tb testing.TB, wrap func(http.Handler) http.Handler) (string, *directory.Client) {
	tb.Helper()
	st, err := directory.OpenStore(filepath.Join(tb.TempDir(), "dir.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	h := directory.NewServer(st, directory.Options{Token: Token}).Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	c, err := directory.NewClient(srv.URL, Token, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return srv.URL, c
}
