package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// newSocket builds the client of a tcp or udp kind.
func newSocket(kind string, d protocol.SocketDesc, timeout time.Duration) (Client, error) {
	if kind == protocol.ClientUDP {
		u, err := NewUDP(d, timeout)
		if err != nil {
			return nil, err
		}
		return u, nil
	}
	t, err := NewTCP(d, timeout)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// expect is what a tcp or udp reply must be (protocol.SocketDesc), with
// its pattern compiled once.
type expect struct {
	prefix []byte         // the reply starts with these bytes
	length int            // the reply is complete after this many bytes (0: not set)
	re     *regexp.Regexp // the reply matches this (nil: not set)
}

// newExpect compiles d's expectations.
func newExpect(d *protocol.SocketDesc) (expect, error) {
	e := expect{prefix: d.ExpectBytes, length: d.ExpectLength}
	if d.ExpectPattern != "" {
		re, err := regexp.Compile(d.ExpectPattern)
		if err != nil {
			return expect{}, fmt.Errorf("client: expect_pattern: %w", err)
		}
		e.re = re
	}
	return e, nil
}

// set reports whether any expectation is set.
func (e *expect) set() bool { return len(e.prefix) > 0 || e.length > 0 || e.re != nil }

// keep is how many leading bytes of a reply the checks need in memory.
func (e *expect) keep() int {
	switch {
	case e.re != nil && e.length > 0:
		return e.length
	case e.re != nil:
		return protocol.MaxPayload
	}
	return len(e.prefix)
}

// stop is the reply length after which the reply is complete whatever it
// holds (0: none; the pattern, the peer or the first read decides).
func (e *expect) stop() int {
	switch {
	case e.length > 0:
		return e.length
	case e.re == nil:
		return len(e.prefix)
	}
	return 0
}

// badPrefix returns a mismatch text if got (the reply's leading bytes so
// far) already differs from the expected prefix.
func (e *expect) badPrefix(got []byte) string {
	n := min(len(got), len(e.prefix))
	if bytes.Equal(got[:n], e.prefix[:n]) {
		return ""
	}
	return fmt.Sprintf("expected a reply starting %s, got %s", quote(e.prefix), quote(got))
}

// complete returns a mismatch text for a whole reply (its kept leading
// bytes, and its length), or "" when it meets every expectation.
func (e *expect) complete(got []byte, total int64) string {
	if bad := e.badPrefix(got); bad != "" {
		return bad
	}
	switch {
	case len(got) < len(e.prefix):
		return fmt.Sprintf("expected a reply starting %s, got %s (%d bytes)", quote(e.prefix), quote(got), total)
	case total < int64(e.length):
		return fmt.Sprintf("expected a reply of %d bytes, got %d: %s", e.length, total, quote(got))
	case e.re != nil && !e.re.Match(got):
		return fmt.Sprintf("expected a reply matching /%s/, got %s (%d bytes)", e.re, quote(got), total)
	}
	return ""
}

// quoteMax is how many bytes of a reply a mismatch text shows.
const quoteMax = 40

// quote shows the first bytes of b, quoted byte by byte (printable
// ASCII as it is, \n \r \t, any other byte \xNN, so that a binary reply
// reads as its bytes, never as the text they might happen to encode),
// with "..." if cut.
func quote(b []byte) string {
	cut := ""
	if len(b) > quoteMax {
		b, cut = b[:quoteMax], "..."
	}
	q := []byte{'"'}
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			q = append(q, '\\', c)
		case c >= 0x20 && c < 0x7f:
			q = append(q, c)
		case c == '\n':
			q = append(q, '\\', 'n')
		case c == '\r':
			q = append(q, '\\', 'r')
		case c == '\t':
			q = append(q, '\\', 't')
		default:
			q = fmt.Appendf(q, "\\x%02x", c)
		}
	}
	return string(append(q, '"')) + cut
}

// chunk is the smallest free room a read is given.
const chunk = 16 << 10

// buffer is a call's read buffer, pooled across calls so that a call in
// the steady state allocates none; it grows up to the bytes kept plus a
// chunk.
type buffer struct{ b []byte }

var buffers = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, chunk)} }}

// room returns b with at least n bytes free past its length.
func room(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return append(b[:cap(b)], make([]byte, n)...)[:len(b)]
}

// aLongTimeAgo is a deadline that makes pending I/O return at once.
var aLongTimeAgo = time.Unix(1, 0)

// watch makes c's pending and later I/O fail when ctx is done, until the
// returned stop is called; stop reports false if ctx was done (c's
// deadline may then be in the past: do not reuse c). A ctx that is never
// done costs nothing.
func watch(ctx context.Context, c net.Conn) (stop func() bool) {
	if ctx.Done() == nil {
		return func() bool { return true }
	}
	return context.AfterFunc(ctx, func() { _ = c.SetDeadline(aLongTimeAgo) })
}

// failure classes an I/O error of a call whose caller's context is ctx:
// Cancelled if ctx is done, Timeout if a deadline passed, else Failed.
func failure(ctx context.Context, n int64, err error) Reply {
	st := sample.Failed
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		st = sample.Cancelled
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		st = sample.Timeout
	}
	return Reply{Status: st, Bytes: n, Err: err.Error()}
}

// errClosedEarly is a reply cut short by the peer's close.
var errClosedEarly = errors.New("the peer closed the connection before the reply was complete")

// readReply reads one reply from r as e wants it (see TCP for the rules),
// using buf. It returns the bytes read, a mismatch text (a bad reply), or
// a read error.
func (e *expect) readReply(r io.Reader, buf *buffer, keepAlive bool) (int64, string, error) {
	keep, stop := e.keep(), int64(e.stop())
	kept := buf.b[:0]
	defer func() { buf.b = kept[:0] }()
	var total int64
	for {
		var dst []byte
		if len(kept) < keep {
			kept = room(kept, min(max(len(kept), chunk), keep-len(kept)))
			dst = kept[len(kept):min(cap(kept), keep)]
		} else {
			kept = room(kept, chunk)
			dst = kept[len(kept):cap(kept)]
		}
		if stop > 0 {
			dst = dst[:min(int64(len(dst)), stop-total)]
		}
		n, err := r.Read(dst)
		total += int64(n)
		if len(kept) < keep {
			kept = kept[:len(kept)+n]
		}
		if bad := e.badPrefix(kept); bad != "" {
			return total, bad, nil
		}
		switch {
		case stop > 0 && total >= stop:
			return total, e.complete(kept, total), nil
		case e.re != nil && stop == 0 && n > 0 && len(kept) >= len(e.prefix) && e.re.Match(kept):
			return total, "", nil
		case e.re != nil && stop == 0 && len(kept) >= keep:
			return total, fmt.Sprintf("expected a reply matching /%s/ within %d bytes, got %s", e.re, keep, quote(kept)), nil
		case !e.set() && keepAlive && total > 0:
			return total, "", nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				if !e.set() && !keepAlive {
					return total, "", nil
				}
				return total, "", fmt.Errorf("%w (after %d bytes)", errClosedEarly, total)
			}
			return total, "", err
		}
	}
}

// pool holds a client's idle connections or sockets between calls, last
// in first out; every client loop of a tester shares it, so it holds at
// most as many as there are loops.
type pool struct {
	mu     sync.Mutex
	idle   []net.Conn
	closed bool
}

// take returns an idle connection, or nil.
func (p *pool) take() net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	c := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	return c
}

// put pools c for a later call, or closes it if the pool is closed.
func (p *pool) put(c net.Conn) {
	p.mu.Lock()
	if !p.closed {
		p.idle = append(p.idle, c)
		c = nil
	}
	p.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// Close closes the idle connections; one in use is closed when its call
// puts it back.
func (p *pool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	var errs []error
	for _, c := range idle {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
