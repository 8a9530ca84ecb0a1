//go:build linux

package client

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// openCall is one call (or drop) LoopOpen recorded.
type openCall struct {
	client               uint32
	intended, start, end int64
	r                    Reply
}

// runOpenLoop runs calls arrivals gap apart on an HTTPLoop of url with
// clients connections, waits of at most maxLate and a queue of queue
// calls; it returns what was recorded, the intended starts planned and
// how the loop ended.
func runOpenLoop(t *testing.T, ctx context.Context, url string, clients, calls int, gap, maxLate time.Duration,
	queue int) ([]openCall, []int64, string) {
	t.Helper()
	lp, now := loopClient(t, get(url), 5*time.Second)
	var planned []int64
	t0 := now()
	next := func() (int64, bool) {
		if len(planned) == calls {
			return 0, false
		}
		planned = append(planned, t0+int64(len(planned)+1)*int64(gap))
		return planned[len(planned)-1], true
	}
	p := OpenPlan{Clients: clients, Next: next, End: t0 + int64(calls+1)*int64(gap), MaxLate: maxLate, Queue: queue}
	var got []openCall
	end := lp.LoopOpen(ctx, p, now, func(id uint32, in, s, e int64, r *Reply) {
		got = append(got, openCall{id, in, s, e, *r})
	})
	return got, planned, end
}

// accounted checks that every planned call was recorded once, made or
// dropped, and returns the made and dropped ones.
func accounted(t *testing.T, got []openCall, planned []int64, clients int) (made, dropped []openCall) {
	t.Helper()
	seen := map[int64]int{}
	for _, c := range got {
		seen[c.intended]++
		if int(c.client) >= clients || c.start < c.intended || c.end < c.start {
			t.Errorf("call %+v: client out of range or started before its intended start", c)
		}
		if c.r.Status == sample.Dropped {
			dropped = append(dropped, c)
		} else {
			made = append(made, c)
		}
	}
	for _, in := range planned {
		if seen[in] != 1 {
			t.Errorf("intended start %d recorded %d times, want once", in, seen[in])
		}
	}
	if len(got) != len(planned) {
		t.Errorf("%d records for %d planned calls", len(got), len(planned))
	}
	return made, dropped
}

// TestLoopOpenMakesEveryCall runs 300 calls 1 ms apart over 8
// connections to a quick server: every call made, OK, started at or after
// its intended start, and the loop does not end before the stages do.
func TestLoopOpenMakesEveryCall(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("hi")) }))
	defer srv.Close()
	got, planned, end := runOpenLoop(t, context.Background(), srv.URL, 8, 300, time.Millisecond, time.Second, 1002)
	made, dropped := accounted(t, got, planned, 8)
	if end != "completed" || len(dropped) != 0 || len(made) != 300 {
		t.Fatalf("%s: %d made, %d dropped; want completed, 300 made", end, len(made), len(dropped))
	}
	for _, c := range made {
		if c.r.Status != sample.OK || c.r.Bytes != 2 {
			t.Fatalf("call %+v: want OK with 2 bytes", c)
		}
	}
	if last := got[len(got)-1]; last.end < planned[len(planned)-1] {
		t.Errorf("last call ended at %d, before the last intended start %d", last.end, planned[len(planned)-1])
	}
}

// TestLoopOpenDropsWhatCannotStart runs calls 10 ms apart on 2
// connections to a server that takes 200 ms: calls wait for a connection
// and those that cannot start within 50 ms are dropped, never made late
// beyond it; a queue of 2 drops the oldest when a third call is due.
func TestLoopOpenDropsWhatCannotStart(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		maxLate time.Duration
		queue   int
		why     string
	}{{50 * time.Millisecond, 100, DroppedLate(50 * time.Millisecond)}, {time.Second, 2, DroppedFull(2)}} {
		got, planned, end := runOpenLoop(t, context.Background(), srv.URL, 2, 30, 10*time.Millisecond, tc.maxLate, tc.queue)
		made, dropped := accounted(t, got, planned, 2)
		if end != "completed" || len(dropped) == 0 || len(made) < 2 {
			t.Fatalf("queue %d: %s with %d made, %d dropped; want completed, drops", tc.queue, end, len(made), len(dropped))
		}
		for _, c := range made {
			if c.start-c.intended > int64(tc.maxLate) {
				t.Errorf("call %+v started %v late, past %v", c, time.Duration(c.start-c.intended), tc.maxLate)
			}
		}
		for _, c := range dropped {
			if c.r.Err != tc.why || c.start != c.end {
				t.Errorf("drop %+v, want %q at one instant", c, tc.why)
			}
		}
	}
}

// TestLoopOpenStopped cancels a run whose calls hang: the calls in flight
// are recorded Cancelled, those waiting Dropped, and nothing is lost.
func TestLoopOpenStopped(t *testing.T) {
	t.Parallel()
	var arrived atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		<-release
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for arrived.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	got, planned, end := runOpenLoop(t, ctx, srv.URL, 2, 10000, time.Millisecond, time.Minute, 10002)
	if end != "stopped" {
		t.Fatalf("ended %q, want stopped", end)
	}
	var cancelled, dropped int
	for _, c := range got {
		switch {
		case c.r.Status == sample.Cancelled:
			cancelled++
		case c.r.Status == sample.Dropped && c.r.Err == DroppedStopped:
			dropped++
		default:
			t.Errorf("call %+v: want cancelled or dropped as stopped", c)
		}
	}
	// The loop holds the next arrival before it is due: every call due
	// is recorded, that one is not (10,000 calls 1 ms apart: the run is
	// stopped long before the last is due, however slow the machine).
	if cancelled != 2 || dropped == 0 || len(got) != len(planned)-1 {
		t.Errorf("%d cancelled, %d dropped of %d records, %d planned", cancelled, dropped, len(got), len(planned))
	}
}

// TestLoopOpenHostileServers runs the open model against servers that
// close unanswered, answer garbage, or add bytes nobody asked for: every
// call is accounted for (made or dropped), the loop completes, and calls
// that got no proper answer are failures, never hangs.
func TestLoopOpenHostileServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		serve func(c net.Conn, n int) bool
		ok    bool // some calls may succeed
	}{
		{"closes", func(net.Conn, int) bool { return false }, false},
		{"garbage", func(c net.Conn, _ int) bool { _, _ = c.Write([]byte("HTTP/9 banana\r\n\r\n")); return true }, false},
		{"extra bytes", func(c net.Conn, _ int) bool {
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"))
			return true
		}, true},
	} {
		url := rawServerN(t, tc.serve)
		got, planned, end := runOpenLoop(t, context.Background(), url, 4, 100, time.Millisecond, time.Second, 1000)
		made, _ := accounted(t, got, planned, 4)
		failed := 0
		for _, c := range made {
			if c.r.Status == sample.Failed && c.r.Err != "" {
				failed++
			}
		}
		if end != "completed" || (!tc.ok && failed != len(made)) || len(made) == 0 {
			t.Errorf("%s: %s, %d of %d made calls failed", tc.name, end, failed, len(made))
		}
	}
}
