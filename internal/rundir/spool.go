package rundir

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
)

// SpoolWriter appends sample batches and sync records, tagged with the
// tester's slot, to the spool as they arrive: protocol frames, so a crash
// leaves a readable prefix. Safe for concurrent use.
type SpoolWriter struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	buf []byte
}

// CreateSpool opens a new spool file.
func CreateSpool(path string) (*SpoolWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &SpoolWriter{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Batch appends one tester's sample batch (its encoded wire payload).
func (s *SpoolWriter) Batch(slot int, payload []byte) error {
	return s.frame(protocol.TypeSamples, slot, payload)
}

// Sync appends one tester's sync record.
func (s *SpoolWriter) Sync(slot int, r clock.Record) error {
	b, _ := json.Marshal(r)
	return s.frame(protocol.TypeSyncRecord, slot, b)
}

func (s *SpoolWriter) frame(t protocol.Type, slot int, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = binary.AppendUvarint(s.buf[:0], uint64(slot))
	s.buf = append(s.buf, payload...)
	return protocol.WriteFrame(s.w, t, s.buf)
}

// Flush pushes buffered frames to the file.
func (s *SpoolWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Flush()
}

// Close flushes and closes the spool.
func (s *SpoolWriter) Close() error {
	if err := s.Flush(); err != nil {
		s.f.Close()
		return err
	}
	return s.f.Close()
}

// SpoolVisitor receives what a spool holds, in order.
type SpoolVisitor struct {
	Batch func(slot int, b *protocol.Batch) error
	Sync  func(slot int, r clock.Record) error
}

// ReadSpool replays a spool. A torn last frame (a crash mid-write) ends the
// replay without error; anything else malformed is an error.
func ReadSpool(path string, v SpoolVisitor) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	for {
		t, p, err := protocol.ReadFrame(r)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("spool %s: %w", path, err)
		}
		if err := replay(t, p, v); err != nil {
			return fmt.Errorf("spool %s: %w", path, err)
		}
	}
}

func replay(t protocol.Type, p []byte, v SpoolVisitor) error {
	slot, n := binary.Uvarint(p)
	if n <= 0 {
		return errors.New("bad slot")
	}
	p = p[n:]
	switch t {
	case protocol.TypeSamples:
		b, err := protocol.DecodeBatch(p)
		if err != nil {
			return err
		}
		return v.Batch(int(slot), b)
	case protocol.TypeSyncRecord:
		var r clock.Record
		if err := json.Unmarshal(p, &r); err != nil {
			return err
		}
		return v.Sync(int(slot), r)
	}
	return fmt.Errorf("unexpected %s frame", t)
}
