package rundir

import (
	"bytes"
	"errors"
	"io"
)

// memChunk is the size of each block of a memory spool: big enough that
// the blocks are few, small enough that the last one wastes little.
const memChunk = 4 << 20

// memSpool holds a spool's frames in memory, in blocks that are never
// copied again once written (a growing slice would copy the whole run at
// each doubling).
type memSpool struct {
	blocks [][]byte
}

// write appends p (one whole frame).
func (m *memSpool) write(p []byte) {
	for len(p) > 0 {
		if len(m.blocks) == 0 || len(m.blocks[len(m.blocks)-1]) == memChunk {
			m.blocks = append(m.blocks, make([]byte, 0, memChunk))
		}
		last := &m.blocks[len(m.blocks)-1]
		n := min(len(p), memChunk-len(*last))
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

// NewMemorySpool returns a spool that keeps its frames in memory
// (controller.mode: memory): nothing is written to disk until the run's
// end, when WriteSamplesSpool converts it, so a crash loses the run.
// Its writes never fail.
func NewMemorySpool() *SpoolWriter {
	s := &SpoolWriter{mem: &memSpool{}, stop: make(chan struct{}), done: make(chan struct{})}
	close(s.done)
	return s
}

// InMemory reports whether s keeps its frames in memory (NewMemorySpool).
func (s *SpoolWriter) InMemory() bool { return s.mem != nil }

// MemoryReader returns the frames of a memory spool, once it is closed.
func (s *SpoolWriter) MemoryReader() (io.Reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		return nil, errors.New("spool: not a memory spool")
	}
	if !errors.Is(s.err, errSpoolClosed) {
		return nil, errors.New("spool: read before it was closed")
	}
	return s.mem.reader(), nil
}
