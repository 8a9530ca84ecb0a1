package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// connPool is HTTPLoop's Call path: plain HTTP/1.1 keep-alive on blocking
// connections, kept idle between calls, with the pre-built request and the
// in-place parser (a few times cheaper than net/http per call).
type connPool struct {
	mu     sync.Mutex
	idle   []*rawConn
	closed bool
}

// rawConn is one connection and its read buffer.
type rawConn struct {
	c   net.Conn
	buf []byte
	n   int // bytes in buf not parsed yet
}

// get takes an idle connection, or nil.
func (p *connPool) get() *rawConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		rc := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return rc
	}
	return nil
}

// put keeps rc for a later call (closes it once the pool is closed).
func (p *connPool) put(rc *rawConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		rc.c.Close()
		return
	}
	p.idle = append(p.idle, rc)
}

// close closes the idle connections.
func (p *connPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rc := range p.idle {
		rc.c.Close()
	}
	p.idle, p.closed = nil, true
}

// Close closes the idle connections of both paths.
func (h *HTTPLoop) Close() error {
	h.pool.close()
	return h.HTTP.Close()
}

// Call makes the request once on a pooled connection. Its statuses are
// HTTP.Call's.
func (h *HTTPLoop) Call(ctx context.Context) Reply {
	start := time.Now()
	deadline := start.Add(h.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	rc, ph := h.pool.get(), sample.Phases{}
	for attempt := 0; ; attempt++ {
		reused := rc != nil
		if !reused {
			var err error
			if rc, err = h.dial(ctx, deadline, &ph); err != nil {
				return h.classify(ctx, Reply{Phases: ph}, err)
			}
		}
		r, got, err := h.exchange(ctx, rc, deadline, &ph)
		if err == nil {
			return r
		}
		rc.c.Close()
		var unsent notSentError
		if reused && !got && attempt == 0 && ctx.Err() == nil && time.Now().Before(deadline) &&
			(h.replayable || errors.As(err, &unsent)) {
			rc = nil // the server closed an idle connection: once more on a new one
			continue
		}
		return h.classify(ctx, r, err)
	}
}

// dial opens a connection, timing the connect phase.
func (h *HTTPLoop) dial(ctx context.Context, deadline time.Time, ph *sample.Phases) (*rawConn, error) {
	t0 := time.Now()
	d := net.Dialer{Deadline: deadline}
	c, err := d.DialContext(ctx, "tcp", h.hostPort)
	ph.Connect = int64(time.Since(t0))
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	return &rawConn{c: c, buf: make([]byte, 4<<10)}, nil
}

// exchange writes the request and reads the response on rc; got reports
// whether any byte of a response arrived. On success rc is back in the pool
// (or closed when the response said so).
func (h *HTTPLoop) exchange(ctx context.Context, rc *rawConn, deadline time.Time, ph *sample.Phases) (Reply, bool, error) {
	_ = rc.c.SetDeadline(deadline)
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { _ = rc.c.SetDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	t0 := time.Now()
	if _, err := rc.c.Write(h.request); err != nil {
		return Reply{Phases: *ph}, false, notSentError{err}
	}
	var p respParser
	p.reset(h.isHead)
	got := false
	for !p.done() {
		if rc.n == len(rc.buf) { // a head bigger than the buffer: grow it (the parser caps heads)
			rc.buf = append(rc.buf, make([]byte, len(rc.buf))...)
		}
		m, err := rc.c.Read(rc.buf[rc.n:])
		if m > 0 && !got {
			got, ph.FirstByte = true, int64(time.Since(t0))
		}
		rc.n += m
		k, perr := p.feed(rc.buf[:rc.n])
		rc.n = copy(rc.buf, rc.buf[k:rc.n])
		switch {
		case perr != nil:
			return Reply{Bytes: p.Body, Phases: *ph}, got, perr
		case p.done():
		case err != nil && m == 0 && isEOF(err):
			if eerr := p.eof(); eerr != nil || !got {
				return Reply{Bytes: p.Body, Phases: *ph}, got, eofErr(got, eerr)
			}
		case err != nil:
			return Reply{Bytes: p.Body, Phases: *ph}, got, fmt.Errorf("http: read: %w", err)
		}
	}
	r := Reply{Status: sample.OK, Bytes: p.Body, Phases: *ph}
	if !successful(h.desc.Success, p.Status) {
		r.Status, r.Err = sample.Failed, fmt.Sprintf("HTTP %d", p.Status)
	}
	if p.Close || rc.n > 0 {
		rc.c.Close()
	} else {
		h.pool.put(rc)
	}
	return r, got, nil
}

// notSentError is a failed write of a request: it did not reach the
// server whole, so it may be sent again whatever its method.
type notSentError struct{ err error }

func (e notSentError) Error() string { return "http: write: " + e.err.Error() }
func (e notSentError) Unwrap() error { return e.err }

// classify turns an error of a call into its reply.
func (h *HTTPLoop) classify(ctx context.Context, r Reply, err error) Reply {
	r.Status, r.Err = sample.Failed, err.Error()
	switch {
	case ctx.Err() != nil:
		r.Status = sample.Cancelled
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		r.Status = sample.Timeout
	}
	return r
}
