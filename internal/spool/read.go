package spool

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
)

// Visitor receives what a spool holds, in order. A nil func skips those
// frames.
type Visitor struct {
	Batch  func(slot int, b *protocol.Batch) error
	Sync   func(slot int, r clock.Record) error
	Record func(slot int, payload []byte) error // a tester record (TesterType), as written
}

// Read replays the spool at path. A torn last frame (a crash
// mid-write) ends the replay without error; anything else malformed is an
// error that says at which byte.
func Read(path string, v Visitor) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ReadFrom(f, v); err != nil {
		return fmt.Errorf("spool %s: %w", path, err)
	}
	return nil
}

// Lock opens the spool at path for reading and locks it, so that no
// controller writes it meanwhile: ErrInUse (wrapped) while one does.
// Closing the file releases the lock.
func Lock(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// ErrInUse is returned by Lock while a live controller (or
// another recovery) holds the spool.
var ErrInUse = errors.New("the spool is in use: the run's controller is still running, or another diperf recovers it")

// ReadFrom replays a spool from r, as Read does. It holds at
// most one frame (bounded by the frame limit) at a time.
func ReadFrom(r io.Reader, v Visitor) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	var buf []byte
	for {
		t, p, err := readFrame(br, &buf)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // the end, or a torn last frame
		}
		if err == nil {
			err = replay(t, p, v)
		}
		if err != nil {
			return fmt.Errorf("frame at byte %d: %w", off, err)
		}
		off += int64(5 + len(p))
	}
}

// readFrame reads one frame into *buf (reused).
func readFrame(r io.Reader, buf *[]byte) (protocol.Type, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	t := protocol.Type(hdr[4])
	switch {
	case n > maxFrame:
		return 0, nil, fmt.Errorf("%w: %d bytes (limit %d)", protocol.ErrFrameTooLarge, n, maxFrame)
	case t != protocol.TypeSamples && t != protocol.TypeSyncRecord && t != TesterType:
		return 0, nil, fmt.Errorf("unexpected frame type %d (%s) in a spool", hdr[4], t)
	}
	// Grown as the payload arrives, so that a header that lies about its
	// length costs no more memory than the bytes that follow it.
	p := (*buf)[:0]
	for len(p) < int(n) {
		chunk := min(int(n)-len(p), 64<<10)
		p = slices.Grow(p, chunk)
		m, err := io.ReadFull(r, p[len(p):len(p)+chunk])
		p = p[:len(p)+m]
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // torn
		}
		if err != nil {
			return 0, nil, err
		}
	}
	*buf = p
	return t, p, nil
}

func replay(t protocol.Type, p []byte, v Visitor) error {
	slot, n := binary.Uvarint(p)
	if n <= 0 || slot > math.MaxInt32 {
		return errors.New("bad tester slot")
	}
	p = p[n:]
	switch t {
	case protocol.TypeSamples:
		b, err := protocol.DecodeBatch(p)
		if err != nil || v.Batch == nil {
			return err
		}
		return v.Batch(int(slot), b)
	case protocol.TypeSyncRecord:
		var r clock.Record
		if err := json.Unmarshal(p, &r); err != nil {
			return fmt.Errorf("sync record: %w", err)
		}
		if v.Sync == nil {
			return nil
		}
		return v.Sync(int(slot), r)
	default: // TesterType
		if v.Record == nil {
			return nil
		}
		return v.Record(int(slot), p)
	}
}
