package directory

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// endless is a directory that always says another page follows: with
// cursor next(n) for its nth answer.
func endless(t *testing.T, next func(n int64) string) *Client {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(NextCursorHeader, next(n.Add(1)))
		w.Write([]byte(`[{"src":"a","dst":"b","kind":"bandwidth"},{"src":"a","dst":"c","kind":"bandwidth"}]`)) //nolint:errcheck // the client went away
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, []byte("a-token-of-enough-bytes"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A client reads every page up to its bound on rows, then fails with
// ErrCut saying so, never returning a cut answer as if whole; a
// directory whose next page does not move on is an error, not a loop.
func TestClientSaysWhenCut(t *testing.T) {
	c := endless(t, func(n int64) string { return strconv.FormatInt(n, 10) })
	c.maxRows = 50
	rs, err := c.Results(context.Background(), Query{Latest: true})
	if !errors.Is(err, ErrCut) || rs != nil || !strings.Contains(err.Error(), "more than 50 rows") {
		t.Errorf("an answer past the bound: %d rows, %v; want none and ErrCut", len(rs), err)
	}
	c = endless(t, func(int64) string { return "same" })
	if _, err := c.Forecasts(context.Background(), Query{}); err == nil || !strings.Contains(err.Error(), "does not move on") {
		t.Errorf("a cursor that stays: %v; want an error", err)
	}
}
