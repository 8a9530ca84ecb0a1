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

// EventLog appends events, one JSON object a line, flushed at each event
// so that a crash loses nothing already said. Safe for concurrent use.
type EventLog struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// CreateEventLog opens dir/events.jsonl.
func CreateEventLog(dir string) (*EventLog, error) {
	f, err := os.OpenFile(filepath.Join(dir, Events), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &EventLog{f: f, w: bufio.NewWriter(f)}, nil
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
	l.w.Flush()
}

// Close closes the log.
func (l *EventLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Flush()
	return l.f.Close()
}
