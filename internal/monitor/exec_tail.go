package monitor

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool // bytes were dropped from the front
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	if len(b) > t.max {
		b, t.cut = b[len(b)-t.max:], true
	}
	if over := len(t.buf) + len(b) - t.max; over > 0 {
		t.buf, t.cut = append(t.buf[:0], t.buf[over:]...), true
	}
	t.buf = append(t.buf, b...)
	return n, nil
}

// String is the tail, trimmed, valid UTF-8, "…" in front when cut.
func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "?"))
	if t.cut && s != "" {
		s = "…" + s
	}
	return s
}
