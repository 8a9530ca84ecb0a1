//go:build linux

package tester

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// TestOpenOnTheEventLoop runs 500 calls/s for 400 ms through the HTTP
// event loop (a real server, real time): the loop, not the dispatcher,
// makes the calls (the tester's arrivals: exactly 200, due 2 ms apart on
// the tester's clock, the first 1 ms in), each recorded OK
// with its intended start, under the 4 clients.
func TestOpenOnTheEventLoop(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	c, err := client.NewHTTPClient(protocol.HTTPDesc{Method: "GET", URL: srv.URL}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(client.OpenLooper); !ok {
		t.Fatal("the http:// client is not an event loop")
	}
	why, ss, t0 := openRun(t, context.Background(), constant(protocol.ArrivalsUniform, 500, 400*time.Millisecond), 4, c)
	if why != "completed" || len(ss) != 200 {
		t.Fatalf("%s with %d samples, want completed with 200", why, len(ss))
	}
	offs := intendedOffsets(ss, t0)
	if offs[0] < time.Millisecond {
		t.Fatalf("first call due %v after the start, want 1 ms or later", offs[0])
	}
	for i := 1; i < len(offs); i++ {
		// The loop's own start is a few µs after t0: the gaps are exact.
		if gap := offs[i] - offs[i-1]; gap < 2*time.Millisecond-time.Microsecond || gap > 2*time.Millisecond+time.Microsecond {
			t.Fatalf("calls %d and %d due %v apart, want 2 ms", i-1, i, gap)
		}
	}
	for _, s := range ss {
		if s.Status != sample.OK || s.Bytes != 2 || s.Client >= 4 || s.Start < s.Intended {
			t.Fatalf("sample %+v: want OK, 2 bytes, client < 4, started at or after its intended start", s)
		}
	}
}
