package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// recentSeconds is how many seconds each update carries: the provisional
// ones (live.Lag) and a few more, so that a browser that missed an update
// still has every second.
const recentSeconds = 10

// hub hands each update to every browser listening. An update is encoded
// once, whatever the number of browsers; a browser too slow to take it
// misses it (the next one carries the same seconds again).
type hub struct {
	mu   sync.Mutex
	subs map[chan []byte]struct{}
	done bool
}

func newHub() *hub { return &hub{subs: map[chan []byte]struct{}{}} }

func (h *hub) add() (chan []byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return nil, false
	}
	c := make(chan []byte, 2)
	h.subs[c] = struct{}{}
	return c, true
}

func (h *hub) remove(c chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[c]; ok {
		delete(h.subs, c)
		close(c)
	}
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// send offers msg to every browser, never waiting for one.
func (h *hub) send(msg []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.subs {
		select {
		case c <- msg:
		default:
		}
	}
}

// closeAll ends every browser's stream (each gets what is queued first).
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	for c := range h.subs {
		delete(h.subs, c)
		close(c)
	}
}

// broadcast sends an update every period while a browser listens, and a
// last one when the server closes.
func (s *Server) broadcast() {
	tk := time.NewTicker(s.o.Period)
	defer tk.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-tk.C:
			if s.hub.count() > 0 {
				s.hub.send(s.update(s.run.Now().Unix() - recentSeconds))
			}
		}
	}
}

// update encodes the run's state with the seconds from since as one SSE
// event.
func (s *Server) update(since int64) []byte {
	b, err := json.Marshal(s.run.Snapshot(since))
	if err != nil {
		b = []byte(`{"error":` + fmt.Sprintf("%q", err.Error()) + `}`)
	}
	return append(append([]byte("data: "), b...), '\n', '\n')
}

// events streams updates to one browser: first the whole run so far,
// then one every period.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	c, ok := s.hub.add()
	if !ok {
		http.Error(w, "the dashboard is closing", http.StatusServiceUnavailable)
		return
	}
	defer s.hub.remove(c)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	if _, err := w.Write(append([]byte("retry: 2000\n"), s.update(0)...)); err != nil {
		return
	}
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, open := <-c:
			if !open {
				_, _ = w.Write(s.update(s.run.Now().Unix() - recentSeconds))
				fl.Flush()
				return
			}
			if _, err := w.Write(msg); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
