package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// frameHeader is a frame's length (4 bytes, big endian) and type.
const frameHeader = 5

// idleRead is the most a reader without a buffer reads at once on a
// connection it cannot wait on without reading (see frameReader.fill).
const idleRead = 16

// frameReader reads frames from a connection, holding a pooled buffer
// only while a frame is in flight: when everything read has been handed
// out, the buffer goes back with the next call, and the wait for the next
// frame holds none. On a TCP or Unix connection it waits for readability
// first and takes a buffer only once there is something to read
// (readRaw); on any other it reads at most idleRead bytes into a small
// array of its own before it takes one.
type frameReader struct {
	nc    net.Conn
	raw   syscall.RawConn // nil: read through nc
	buf   *[]byte         // pooled; nil when nothing is buffered
	r, w  int             // (*buf)[r:w] is read and not yet handed out
	small [idleRead]byte
}

func newFrameReader(nc net.Conn) frameReader {
	return frameReader{nc: nc, raw: rawConn(nc)}
}

// next reads one frame of at most limit body bytes; the body is valid
// until the next call.
func (f *frameReader) next(limit uint32) (Type, []byte, error) {
	if f.buf != nil && f.r == f.w {
		f.release()
	}
	if err := f.fill(frameHeader); err != nil {
		if errors.Is(err, io.EOF) && f.w > f.r {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	b := (*f.buf)[f.r:]
	n := binary.BigEndian.Uint32(b[:4])
	t := Type(b[4])
	if n > limit {
		return 0, nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, n, limit)
	}
	if t == 0 || t >= typeEnd {
		return 0, nil, fmt.Errorf("protocol: unknown message type %d", b[4])
	}
	if err := f.fill(frameHeader + int(n)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, fmt.Errorf("protocol: short frame: %w", err)
	}
	start := f.r + frameHeader
	f.r = start + int(n)
	return t, (*f.buf)[start:f.r:f.r], nil
}

// fill reads until at least need bytes are buffered.
func (f *frameReader) fill(need int) error {
	for f.w-f.r < need {
		if f.buf == nil {
			if err := f.readIdle(); err != nil {
				return err
			}
			continue
		}
		f.makeRoom(need)
		n, err := f.nc.Read((*f.buf)[f.w:])
		f.w += n
		if n == 0 && err == nil {
			err = io.ErrNoProgress
		}
		if err != nil && f.w-f.r < need {
			return err
		}
	}
	return nil
}

// makeRoom makes the buffer hold need bytes from f.r on, with room to
// read more: a larger class when it is too small, else its data moved to
// its start when the free tail is too short.
func (f *frameReader) makeRoom(need int) {
	b := *f.buf
	switch {
	case len(b) < need:
		nb := getBuf(max(need, readAhead))
		f.w = copy(*nb, b[f.r:f.w])
		f.r = 0
		putBuf(f.buf)
		f.buf = nb
	case len(b)-f.r < need || f.w == len(b):
		f.w = copy(b, b[f.r:f.w])
		f.r = 0
	}
}

// readIdle waits for data while holding no buffer, and reads what came
// into a fresh one.
func (f *frameReader) readIdle() error {
	if f.raw != nil {
		return f.readRaw()
	}
	n, err := f.nc.Read(f.small[:])
	if n > 0 {
		f.buf = getBuf(readAhead)
		f.r, f.w = 0, copy(*f.buf, f.small[:n])
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// release gives the buffer back.
func (f *frameReader) release() {
	putBuf(f.buf)
	f.buf, f.r, f.w = nil, 0, 0
}
