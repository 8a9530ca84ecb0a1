package sensord

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/directory/directorytest"
	"github.com/diperf/diperf/internal/sensor"
)

// flakyDirectory is a directory in process that answers 503 while down
// says so, and its token; it counts the requests in calls.
func flakyDirectory(t *testing.T, down func(call int32) bool, calls *atomic.Int32) (url string, token []byte) {
	t.Helper()
	url, _ = directorytest.Start(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down(calls.Add(1)) {
				http.Error(w, "restarting", http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	return url, directorytest.Token
}

// Results made while the directory does not answer are kept and sent, in
// order, at the first write it takes: a directory restart loses none.
func TestSensorKeepsResultsWhileTheDirectoryIsDown(t *testing.T) {
	var down atomic.Bool
	var calls atomic.Int32
	url, token := flakyDirectory(t, func(int32) bool { return down.Load() }, &calls)
	c, err := directory.NewClient(url, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &dirAdapter{c: c}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	for _, n := range []string{"a", "b"} { // the directory takes results between registered sensors
		if _, err := c.Register(ctx, directory.Registration{Name: n, Address: "127.0.0.1:1", Version: "1", Groups: []string{"local"}}); err != nil {
			t.Fatal(err)
		}
	}
	write := func(i int) error {
		return d.Write(ctx, sensor.Result{Src: "a", Dst: "b", Kind: sensor.Latency, At: t0.Add(time.Duration(i) * time.Minute),
			Took: time.Second, Measurement: sensor.Measurement{LatencyMs: float64(i + 1), P50Ms: 1, P90Ms: 1, P99Ms: 1}})
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	for i := 1; i <= 3; i++ {
		if err := write(i); err == nil || !strings.Contains(err.Error(), "kept to send again") {
			t.Fatalf("write %d while down: %v, want an error saying the result is kept", i, err)
		}
	}
	down.Store(false)
	if err := write(4); err != nil {
		t.Fatal(err)
	}
	rs, err := c.Results(ctx, directory.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 5 {
		t.Fatalf("%d results stored, want all 5", len(rs))
	}
	seen := map[float64]bool{}
	for _, r := range rs {
		seen[r.LatencyMs] = true
	}
	for i := 1; i <= 5; i++ {
		if !seen[float64(i)] {
			t.Errorf("result %d lost (stored: %+v)", i, rs)
		}
	}
	if len(d.pending) != 0 {
		t.Errorf("%d results still pending", len(d.pending))
	}
	// a result the directory refuses as invalid is dropped, not retried
	// for ever ahead of the good ones
	bad := sensor.Result{Src: "a", Dst: "b", Kind: sensor.Latency, At: t0, Took: time.Second}
	if err := d.Write(ctx, bad); err == nil || !strings.Contains(err.Error(), "not sent again") {
		t.Errorf("an invalid result: %v, want it refused and dropped", err)
	}
	if err := write(5); err != nil || len(d.pending) != 0 {
		t.Errorf("the write after an invalid result: %v, %d pending", err, len(d.pending))
	}
}

// A sensor started before its directory waits for it; one the directory
// refuses (a wrong token) stops at once, saying why.
func TestSensorRegistersOnceTheDirectoryAnswers(t *testing.T) {
	var calls atomic.Int32
	url, token := flakyDirectory(t, func(call int32) bool { return call == 1 }, &calls)
	reg := directory.Registration{Name: "a", Address: "127.0.0.1:1", Version: "1", Groups: []string{"local"}}
	defer func(d time.Duration) { registerRetry = d }(registerRetry)
	registerRetry = 10 * time.Millisecond
	var stderr bytes.Buffer
	c, _ := directory.NewClient(url, token, nil)
	if _, err := registerFirst(context.Background(), &stderr, c, reg); err != nil {
		t.Fatalf("registering after one 503: %v", err)
	}
	if out := stderr.String(); !strings.Contains(out, "trying again") || !strings.Contains(out, "registered") {
		t.Errorf("stderr %q: want the wait and the registration said", out)
	}
	wrong, _ := directory.NewClient(url, []byte("not-the-mesh-token-but-long-enough"), nil)
	before := calls.Load()
	if _, err := registerFirst(context.Background(), &stderr, wrong, reg); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong token: %v, want the 401 said", err)
	}
	if n := calls.Load() - before; n != 1 {
		t.Errorf("a wrong token was tried %d times, want once", n)
	}
}
