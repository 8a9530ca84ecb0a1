package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/sample"
)

// write is one Write to a stream, with when it came.
type write struct {
	at   time.Time
	data []byte
}

// stream is an http.ResponseWriter for events: each Write is handed to
// out (nil: a browser that never reads, so the Write blocks until ctx
// ends).
type stream struct {
	ctx context.Context
	out chan write
	hdr http.Header
}

func newStream(ctx context.Context, reads bool) *stream {
	s := &stream{ctx: ctx, hdr: http.Header{}}
	if reads {
		s.out = make(chan write, 100)
	}
	return s
}

func (s *stream) Header() http.Header { return s.hdr }
func (s *stream) WriteHeader(int)     {}
func (s *stream) Flush()              {}
func (s *stream) Write(b []byte) (int, error) {
	select {
	case s.out <- write{time.Now(), bytes.Clone(b)}: // a nil out blocks
		return len(b), nil
	case <-s.ctx.Done():
		return 0, s.ctx.Err()
	}
}

// snapshotOf decodes the one SSE event in b.
func snapshotOf(t *testing.T, b []byte) live.Snapshot {
	t.Helper()
	s := strings.TrimPrefix(string(b), "retry: 2000\n")
	if !strings.HasPrefix(s, "data: ") || !strings.HasSuffix(s, "\n\n") || strings.Count(s, "\n") != 2 {
		t.Fatalf("not one SSE event: %.100q", s)
	}
	var snap live.Snapshot
	if err := json.Unmarshal([]byte(strings.TrimPrefix(s, "data: ")), &snap); err != nil {
		t.Fatal(err)
	}
	return snap
}

// bubbleServer is a dashboard of a run on the bubble's clock, a minute
// old, with a call ending in every one of its seconds; it broadcasts
// every period, without a listener (events is called directly).
func bubbleServer(t *testing.T, period time.Duration) (*Server, *live.Run) {
	t.Helper()
	r := live.New(live.Options{Name: "bubble", Testers: 1})
	t0 := time.Now().Unix()
	var ss []sample.Sample
	for s := range int64(60) {
		end := (t0+s)*1e9 + 5e8
		ss = append(ss, sample.Sample{Start: end - 1e7, End: end, Status: sample.OK})
	}
	time.Sleep(time.Minute)
	r.Add(0, ss, uint64(len(ss)), nil)
	s := &Server{run: r, o: Options{Period: period}, hub: newHub(), quit: make(chan struct{}), token: "x"}
	go s.broadcast()
	t.Cleanup(func() { close(s.quit); s.hub.closeAll() })
	return s, r
}

// connect calls events for one browser; it returns its stream and a
// channel closed when events returns.
func connect(s *Server, ctx context.Context, reads bool) (*stream, chan struct{}) {
	w := newStream(ctx, reads)
	done := make(chan struct{})
	req := httptest.NewRequestWithContext(ctx, "GET", "/events", nil)
	go func() { s.events(w, req); close(done) }()
	return w, done
}

func TestEventsSendTheWholeRunFirstThenRecentSecondsEveryPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const period = 250 * time.Millisecond
		s, r := bubbleServer(t, period)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		connected := time.Now()
		w, done := connect(s, ctx, true)
		first := <-w.out
		if !first.at.Equal(connected) || !bytes.HasPrefix(first.data, []byte("retry: 2000\n")) {
			t.Errorf("first event at +%v: %.40q", first.at.Sub(connected), first.data)
		}
		whole := snapshotOf(t, first.data)
		if len(whole.Seconds) != 60 || whole.Totals.ByClass["ok"] != 60 {
			t.Errorf("first event: %d seconds, %d calls; want the whole run: 60 seconds, 60 calls",
				len(whole.Seconds), whole.Totals.ByClass["ok"])
		}
		if want, _ := json.Marshal(r.Snapshot(0)); !bytes.Equal(bytes.TrimSpace(first.data[len("retry: 2000\ndata: "):]), want) {
			t.Errorf("first event is not the whole snapshot")
		}
		prev := first.at
		for i := range 8 {
			u := <-w.out
			if gap := u.at.Sub(prev); (i > 0 && gap != period) || gap > period || gap <= 0 {
				t.Errorf("update %d came %v after the one before, want every %v", i+1, gap, period)
			}
			prev = u.at
			snap := snapshotOf(t, u.data)
			since := u.at.Unix() - recentSeconds
			if n, want := len(snap.Seconds), len(r.Snapshot(since).Seconds); n == 0 || n != want || snap.Seconds[0].T != since {
				t.Errorf("update %d carries %d seconds, want the %d from %d (the last %d s)", i+1, n, want, since, recentSeconds)
			}
		}
		cancel()
		<-done
		synctest.Wait()
		if n := s.hub.count(); n != 0 {
			t.Errorf("%d browsers still subscribed after the only one left", n)
		}
	})
}

func TestASlowBrowserDoesNotHoldBackTheOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const period = 100 * time.Millisecond
		s, _ := bubbleServer(t, period)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, slowDone := connect(s, ctx, false) // never reads: its first Write blocks
		synctest.Wait()
		var got []write
		var mu sync.Mutex
		fast, fastDone := connect(s, context.Background(), true)
		go func() {
			for w := range fast.out {
				mu.Lock()
				got = append(got, w)
				mu.Unlock()
			}
		}()
		time.Sleep(20*period + period/2)
		synctest.Wait()
		mu.Lock()
		if len(got) != 21 {
			t.Errorf("the fast browser got %d events in 20 periods beside a stuck one, want 21", len(got))
		}
		mu.Unlock()
		close(s.quit)
		s.hub.closeAll()
		s.quit = make(chan struct{}) // for the cleanup
		<-fastDone
		synctest.Wait()
		mu.Lock()
		if last := got[len(got)-1]; len(got) != 22 || snapshotOf(t, last.data).Name != "bubble" {
			t.Errorf("closing: the fast browser got %d events, want a last one", len(got))
		}
		mu.Unlock()
		close(fast.out)
		cancel()
		<-slowDone
	})
}
