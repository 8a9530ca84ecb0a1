package rundir

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Event is one line of events.jsonl: something the controller saw, on the
// global timeline.
type Event struct {
	TimeNs int64  `json:"t_ns"`
	Event  string `json:"event"`            // admitted, started, failed, stopped, ...
	Slot   *int   `json:"tester,omitempty"` // tester index, when about one
	ID     string `json:"id,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// EventLog appends events, one JSON object a line. They reach the file
// within EventFlush of being said (a crash loses at most that much), not
// with one write each: a run of 100,000 testers says several events for
// every one, often while its controller holds its lock. Safe for
// concurrent use.
type EventLog struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	dirty bool          // written since the last flush
	stop  chan struct{} // closed by Close: the flusher ends
	done  chan struct{} // closed when the flusher has ended
	once  sync.Once
	watch func(Event) // told of every event (nil: none)
}

// Watch has f told of every event added from now on, in the adder's
// goroutine (f must be quick and must not add events).
func (l *EventLog) Watch(f func(Event)) {
	l.mu.Lock()
	l.watch = f
	l.mu.Unlock()
}

// EventFlush is how often an EventLog flushes what it was told.
const EventFlush = 50 * time.Millisecond

// CreateEventLog opens dir/events.jsonl.
func CreateEventLog(dir string) (*EventLog, error) {
	f, err := os.OpenFile(filepath.Join(dir, Events), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l := &EventLog{f: f, w: bufio.NewWriterSize(f, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go l.flushEvery(EventFlush)
	return l, nil
}

// flushEvery flushes the log every period while it is dirty, until Close.
func (l *EventLog) flushEvery(period time.Duration) {
	defer close(l.done)
	tk := time.NewTicker(period)
	defer tk.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tk.C:
		}
		l.mu.Lock()
		if l.dirty {
			l.w.Flush()
			l.dirty = false
		}
		l.mu.Unlock()
	}
}

// Add records an event now. slot < 0 means the event is about no tester.
func (l *EventLog) Add(event string, slot int, id, detail string) {
	e := Event{TimeNs: time.Now().UnixNano(), Event: event, ID: id, Detail: detail}
	if slot >= 0 {
		e.Slot = &slot
	}
	b, _ := json.Marshal(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(append(b, '\n'))
	l.dirty = true
	if l.watch != nil {
		l.watch(e)
	}
}

// Close flushes and closes the log.
func (l *EventLog) Close() error {
	l.once.Do(func() { close(l.stop) })
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Flush()
	return l.f.Close()
}
