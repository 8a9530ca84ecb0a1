package timeserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"
)

const (
	// maxTCPConns caps the connections served at once; beyond it, new
	// connections are closed at once.
	maxTCPConns = 512
	// tcpReadTimeout is how long a connection may take to send its next
	// whole request, idle time included.
	tcpReadTimeout = 10 * time.Second
	// tcpWriteTimeout is how long a response may take to be written.
	tcpWriteTimeout = 5 * time.Second
	// acceptBackoff is the pause after a failed Accept, e.g. out of fds.
	acceptBackoff = 50 * time.Millisecond
)

// ServeTCP answers requests on connections accepted from ln until ctx is
// done, then closes ln and the open connections, waits for their
// goroutines, and returns nil. Each connection carries RequestSize-byte
// requests, each answered by a ResponseSize-byte response (or by nothing
// when over the rate limit); a malformed request closes the connection.
func (s *Server) ServeTCP(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, maxTCPConns)
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
		select {
		case slots <- struct{}{}:
		default:
			conn.Close() // too many connections
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			s.serveConn(ctx, conn)
		})
	}
}

// serveConn answers the requests of one connection, then closes it.
func (s *Server) serveConn(ctx context.Context, conn net.Conn) {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	src := remoteIP(conn)
	var req [RequestSize]byte
	var resp [ResponseSize]byte
	for {
		conn.SetReadDeadline(time.Now().Add(tcpReadTimeout))
		if _, err := io.ReadFull(conn, req[:]); err != nil {
			return // EOF, timeout, or closed
		}
		t2 := time.Now()
		t1, ok := parseRequest(req[:])
		if !ok {
			s.malformed.Add(1)
			return
		}
		if !s.allowOne(src, t2) {
			s.rateLimited.Add(1)
			continue
		}
		putResponse(resp[:], t1, t2.UnixNano())
		conn.SetWriteDeadline(time.Now().Add(tcpWriteTimeout))
		putT3(resp[:], time.Now().UnixNano())
		if _, err := conn.Write(resp[:]); err != nil {
			return
		}
		s.answered.Add(1)
	}
}

// remoteIP returns the IP of a connection's peer.
func remoteIP(conn net.Conn) netip.Addr {
	if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap()
	}
	ap, _ := netip.ParseAddrPort(conn.RemoteAddr().String())
	return ap.Addr().Unmap()
}
