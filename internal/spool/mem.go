package spool

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// memChunk is the size of each block of a memory spool: big enough that
// the blocks are few, small enough that the last one wastes little.
const memChunk = 4 << 20

// memSpool holds a spool's frames in memory, in blocks that are never
// copied again once written (a growing slice would copy the whole run at
// each doubling).
type memSpool struct {
	blocks [][]byte
	size   int64 // bytes held
	limit  int64 // the most it holds: the frames past it go to spill
	spill  string
}

// fits reports whether a frame of n bytes fits under the limit.
func (m *memSpool) fits(n int) bool { return m.size+int64(n) <= m.limit }

// write appends p (one whole frame).
func (m *memSpool) write(p []byte) {
	m.size += int64(len(p))
	for len(p) > 0 {
		if len(m.blocks) == 0 || len(m.blocks[len(m.blocks)-1]) == cap(m.blocks[len(m.blocks)-1]) {
			m.blocks = append(m.blocks, make([]byte, 0, min(memChunk, max(m.limit, 1))))
		}
		last := &m.blocks[len(m.blocks)-1]
		n := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:n]...)
		p = p[n:]
	}
}

// reader returns the frames written so far.
func (m *memSpool) reader() io.Reader {
	rs := make([]io.Reader, len(m.blocks))
	for i, b := range m.blocks {
		rs[i] = bytes.NewReader(b)
	}
	return io.MultiReader(rs...)
}

// NewMemory returns a spool that keeps its frames in memory
// (controller.mode: memory), up to limit bytes of them: nothing is
// written to disk until the run's end, when WriteSamplesSpool converts
// it, so a crash loses the run. Past the limit (a tester that floods the
// controller, or a run longer than memory mode is for), the spool spills:
// the frames that do not fit go to a spool file at spill, as in disk
// mode (Create), and the memory held stays at the limit. onSpill,
// when set, hears of it once.
func NewMemory(limit int64, spill string, onSpill func()) *Writer {
	return &Writer{mem: &memSpool{limit: limit, spill: spill}, onSpill: onSpill, fsync: (*os.File).Sync,
		stop: make(chan struct{}), done: make(chan struct{})}
}

// InMemory reports whether s keeps its frames in memory (NewMemory).
func (s *Writer) InMemory() bool { return s.mem != nil }

// MemoryBytes is how many bytes of frames a memory spool holds.
func (s *Writer) MemoryBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		return 0
	}
	return s.mem.size
}

// spillLocked opens the spill file of a memory spool and starts its
// fsync cadence. Called with s.mu held.
func (s *Writer) spillLocked() error {
	if s.closing {
		return errClosed
	}
	f, err := os.OpenFile(s.mem.spill, os.O_CREATE|os.O_EXCL|os.O_WRONLY, FileMode)
	if err != nil {
		return fmt.Errorf("spilling the memory spool past %d bytes: %w", s.mem.limit, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return fmt.Errorf("locking %s: %w", s.mem.spill, err)
	}
	s.f, s.looping = f, true
	go s.syncLoop()
	if s.onSpill != nil {
		s.onSpill()
	}
	return nil
}

// MemoryReader returns the frames of a memory spool, once it is closed:
// those it held, then those it spilled. The caller closes it.
func (s *Writer) MemoryReader() (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		return nil, errors.New("spool: not a memory spool")
	}
	if !errors.Is(s.err, errClosed) {
		return nil, errors.New("spool: read before it was closed")
	}
	if s.f == nil {
		return io.NopCloser(s.mem.reader()), nil
	}
	f, err := os.Open(s.mem.spill)
	if err != nil {
		return nil, fmt.Errorf("spool: the frames it spilled: %w", err)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(s.mem.reader(), f), f}, nil
}
