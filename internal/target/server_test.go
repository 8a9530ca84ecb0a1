package target

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestCapacityRounds checks that C=4, S=50ms serves 16 concurrent calls in
// 4 rounds and never has more than C calls in service. On fake time, the
// 4 rounds take exactly 4 × 50 ms.
func TestCapacityRounds(t *testing.T) {
	bubble(t, func(t *testing.T) {
		const workers, calls, service = 4, 16, 50 * time.Millisecond
		var maxBusy atomic.Int64
		ts := newStarted(t, Config{Workers: workers, ServiceTime: service, Dist: DistFixed, Queue: 64},
			func(s *Server) {
				s.onServe = func(*http.Request) { // a slot is held: sample the gauge
					if b := int64(s.Stats().InService); b > maxBusy.Load() {
						maxBusy.Store(b)
					}
				}
			})

		begin := time.Now()
		var wg sync.WaitGroup
		codes := make([]int, calls)
		for i := range calls {
			wg.Go(func() {
				code, _, err := ts.get(context.Background(), "/work/"+strconv.Itoa(i))
				if err != nil {
					t.Errorf("call %d: %v", i, err)
				}
				codes[i] = code
			})
		}
		wg.Wait()
		elapsed := time.Since(begin)

		for i, c := range codes {
			if c != http.StatusOK {
				t.Errorf("call %d: status %d", i, c)
			}
		}
		if want := calls / workers * service; elapsed != want {
			t.Errorf("16 calls took %v, want 4 rounds of 50ms (%v)", elapsed, want)
		}
		if m := maxBusy.Load(); m > workers || m == 0 {
			t.Errorf("max in service = %d, want 1..%d", m, workers)
		}
		if got := ts.Stats().Served; got != calls {
			t.Errorf("served = %d, want %d", got, calls)
		}
	})
}

// TestFIFOOrder queues calls in a known order behind a busy single worker
// and checks that they get the slot in that order.
func TestFIFOOrder(t *testing.T) {
	bubble(t, func(t *testing.T) {
		const n = 6
		var mu sync.Mutex
		var order []string
		ts := newStarted(t, Config{Workers: 1, ServiceTime: 20 * time.Millisecond, Dist: DistFixed, Queue: 16},
			func(s *Server) {
				s.onServe = func(r *http.Request) {
					mu.Lock()
					defer mu.Unlock()
					order = append(order, r.URL.Path)
				}
			})

		var results []<-chan result
		for i := range n {
			results = append(results, ts.asyncGet(context.Background(), "/call/"+strconv.Itoa(i)))
			// Let this call reach the slot or the queue before sending the
			// next one, so the arrival order is known.
			synctest.Wait()
			if st := ts.Stats(); int64(st.InService+st.Queued)+st.Served <= int64(i) {
				t.Fatalf("call %d neither served, in service nor queued: %+v", i, st)
			}
		}
		for i, ch := range results {
			if r := <-ch; r.err != nil || r.code != http.StatusOK {
				t.Errorf("call %d: status %d, err %v", i, r.code, r.err)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for i, p := range order {
			if want := "/call/" + strconv.Itoa(i); p != want {
				t.Fatalf("served order %v, want /call/0../call/%d in order", order, n-1)
			}
		}
		if len(order) != n {
			t.Errorf("served %d calls, want %d", len(order), n)
		}
	})
}

// TestQueueBound fills one worker and a queue of two, then checks that the
// fourth call is rejected at once (no time passes) and counted.
func TestQueueBound(t *testing.T) {
	bubble(t, func(t *testing.T) {
		ts := newStarted(t, Config{Workers: 1, ServiceTime: 200 * time.Millisecond, Dist: DistFixed, Queue: 2}, nil)
		var pending []<-chan result
		for i := range 3 {
			pending = append(pending, ts.asyncGet(context.Background(), "/call"))
			synctest.Wait()
			if st := ts.Stats(); st.InService+st.Queued != i+1 {
				t.Fatalf("call %d neither in service nor queued: %+v", i, st)
			}
		}

		begin := time.Now()
		code, _ := ts.mustGet(t, "/call")
		if elapsed := time.Since(begin); elapsed != 0 {
			t.Errorf("rejection took %v, want immediate", elapsed)
		}
		if code != http.StatusServiceUnavailable {
			t.Errorf("4th call status = %d, want 503", code)
		}
		if st := ts.Stats(); st.Rejected != 1 {
			t.Errorf("Stats().Rejected = %d, want 1", st.Rejected)
		}
		if v := metricValues(t, ts)["diperf_target_rejected_total"]; v != 1 {
			t.Errorf("diperf_target_rejected_total = %v, want 1", v)
		}
		for i, ch := range pending {
			if r := <-ch; r.err != nil || r.code != http.StatusOK {
				t.Errorf("call %d: status %d, err %v", i, r.code, r.err)
			}
		}
	})
}

// TestCancelWhileWaiting checks that a call whose client goes away while it
// waits leaves the queue, is not served, and does not leak a slot.
func TestCancelWhileWaiting(t *testing.T) {
	bubble(t, func(t *testing.T) {
		var served atomic.Int64
		ts := newStarted(t, Config{Workers: 1, ServiceTime: 150 * time.Millisecond, Dist: DistFixed, Queue: 4},
			func(s *Server) {
				s.onServe = func(r *http.Request) {
					if r.URL.Path == "/cancelled" {
						t.Error("cancelled call was served")
					}
					served.Add(1)
				}
			})
		first := ts.asyncGet(context.Background(), "/first")
		synctest.Wait()
		if st := ts.Stats(); st.InService != 1 {
			t.Fatalf("first call not in service: %+v", st)
		}

		ctx, cancel := context.WithCancel(context.Background())
		waiting := ts.asyncGet(ctx, "/cancelled")
		synctest.Wait()
		if st := ts.Stats(); st.Queued != 1 {
			t.Fatalf("second call not queued: %+v", st)
		}
		cancel()
		if r := <-waiting; !isCanceled(r.err) {
			t.Errorf("cancelled call: status %d, err %v; want context.Canceled", r.code, r.err)
		}
		synctest.Wait()
		if st := ts.Stats(); st.Queued != 0 {
			t.Errorf("the cancelled call is still queued: %+v", st)
		}
		if r := <-first; r.code != http.StatusOK {
			t.Errorf("first call: status %d, err %v", r.code, r.err)
		}
		if code, _ := ts.mustGet(t, "/after"); code != http.StatusOK {
			t.Errorf("call after cancellation: status %d", code)
		}
		if st := ts.Stats(); st.Served != 2 || served.Load() != 2 || st.InService != 0 {
			t.Errorf("stats %+v, hook saw %d; want 2 served, 0 in service", st, served.Load())
		}
	})
}

// TestHealthz checks the health endpoint.
func TestHealthz(t *testing.T) {
	bubble(t, func(t *testing.T) {
		ts := newStarted(t, DefaultConfig(), nil)
		if code, body := ts.mustGet(t, PathHealthz); code != http.StatusOK || body != "ok\n" {
			t.Errorf("healthz = %d %q", code, body)
		}
		if st := ts.Stats(); st.Served != 0 {
			t.Errorf("healthz counted as a call: %+v", st)
		}
	})
}
