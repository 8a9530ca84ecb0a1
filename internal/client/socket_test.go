package client

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// tcpServer is a loopback TCP server run by a test: each connection is
// served by handle; accepts counts the connections.
type tcpServer struct {
	addr    string
	accepts atomic.Int64
}

// startTCP starts a server whose connections handle serves; it stops, and
// closes every connection, at the test's end.
func startTCP(t testing.TB, handle func(net.Conn)) *tcpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpServer{addr: ln.Addr().String()}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return s
}

// echo copies what it reads back.
func echo(c net.Conn) { _, _ = io.Copy(c, c) }

// lineReply answers each line read with reply.
func lineReply(reply string) func(net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReader(c)
		for {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
			if _, err := io.WriteString(c, reply); err != nil {
				return
			}
		}
	}
}

// banner says s and closes.
func banner(s string) func(net.Conn) {
	return func(c net.Conn) { _, _ = io.WriteString(c, s) }
}

// silent reads and never answers (until the connection closes).
func silent(c net.Conn) { _, _ = io.Copy(io.Discard, c) }

// reset reads a request, then resets the connection.
func reset(c net.Conn) {
	_, _ = c.Read(make([]byte, 64))
	_ = c.(*net.TCPConn).SetLinger(0)
}

// flood sends 100 MB of 'x' on each connection, whatever is asked.
func flood(c net.Conn) {
	go silent(c)
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for sent := 0; sent < 100<<20; sent += len(chunk) {
		if _, err := c.Write(chunk); err != nil {
			return
		}
	}
}

// startUDP starts a loopback UDP server: answer returns the reply to the
// nth datagram (from 0), nil for none, and may sleep. It stops at the
// test's end.
func startUDP(t testing.TB, answer func(n int, req []byte) []byte) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, maxDatagram)
		for n := 0; ; n++ {
			k, from, err := pc.ReadFrom(buf)
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				continue
			}
			if reply := answer(n, buf[:k]); reply != nil {
				_, _ = pc.WriteTo(reply, from)
			}
		}
	}()
	t.Cleanup(func() { _ = pc.Close(); <-done })
	return pc.LocalAddr().String()
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T, network string) string {
	t.Helper()
	var addr string
	if network == "tcp" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = ln.Addr().String()
		_ = ln.Close()
	} else {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = pc.LocalAddr().String()
		_ = pc.Close()
	}
	return addr
}
