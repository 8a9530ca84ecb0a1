package timeserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"
)

const (
	// tcpWriteTimeout is how long a response may take to be written.
	tcpWriteTimeout = 5 * time.Second
	// acceptBackoff is the pause after a failed Accept, e.g. out of fds.
	acceptBackoff = 50 * time.Millisecond
)

// ServeTCP answers requests on connections accepted from ln until ctx is
// done, then closes ln and the open connections, waits for their
// goroutines, and returns nil. Each connection carries RequestSize-byte
// requests, each answered by a ResponseSize-byte response (or by nothing
// when over the rate limit); a malformed or unauthentic request closes the
// connection.
// The connections are held to the limits tcpLimits describes: idle ones
// are closed, and no source's idle connections can keep a tester out.
func (s *Server) ServeTCP(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	table := newConnTable(s.tcpLim, &s.connsClosed)
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			time.Sleep(acceptBackoff) // e.g. EMFILE: let connections finish
			continue
		}
		c := table.admit(conn, remoteIP(conn), time.Now())
		if c == nil {
			conn.Close() // full of busy connections
			continue
		}
		wg.Go(func() {
			defer table.done(c)
			s.serveConn(ctx, c, table)
		})
	}
}

// serveConn answers the requests of one connection, then closes it.
func (s *Server) serveConn(ctx context.Context, c *tcpConn, table *connTable) {
	conn := c.conn
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	var req [RequestSize]byte
	var resp [ResponseSize]byte
	m := newMacer()
	deadline := c.opened.Add(s.tcpLim.firstRequest)
	for {
		conn.SetReadDeadline(deadline)
		if _, err := io.ReadFull(conn, req[:]); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				s.connsClosed.Add(1)
			}
			return // EOF, timeout, or closed
		}
		t2 := time.Now()
		r, ok := parseRequest(req[:])
		if !ok {
			s.malformed.Add(1)
			return
		}
		table.served(c, t2)
		deadline = t2.Add(s.tcpLim.idle)
		if !s.answerTCP(conn, m, req[:], resp[:], r, t2, c.src) {
			return
		}
	}
}

// answerTCP answers request req (parsed as r, received at t2) on conn,
// unless it is over its source's rate; it returns false when the
// connection is to be closed: the request is unauthentic (counted), or
// the write failed.
func (s *Server) answerTCP(conn net.Conn, m *macer, req, resp []byte, r request, t2 time.Time, src netip.Addr) bool {
	k, ok := s.authenticate(m, req, r)
	if !ok {
		s.unauthentic.Add(1)
		return false
	}
	if !s.allowOne(src, t2) {
		s.rateLimited.Add(1)
		return true
	}
	putResponse(resp, req, r, t2.UnixNano())
	conn.SetWriteDeadline(time.Now().Add(tcpWriteTimeout))
	putT3(resp, time.Now().UnixNano())
	if k != nil {
		m.sealResponse(k, resp)
	}
	if _, err := conn.Write(resp); err != nil {
		return false
	}
	s.answered.Add(1)
	return true
}

// remoteIP returns the IP of a connection's peer.
func remoteIP(conn net.Conn) netip.Addr {
	if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap()
	}
	ap, _ := netip.ParseAddrPort(conn.RemoteAddr().String())
	return ap.Addr().Unmap()
}
