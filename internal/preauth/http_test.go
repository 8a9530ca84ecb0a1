package preauth

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestHTTPPartialHeaderEvicted serves HTTP with room for 2 connections
// not yet proved: two peers send one byte of a request and stall; a
// member's request on a new connection closes the oldest of them and is
// answered, and so is the next one.
func TestHTTPPartialHeaderEvicted(t *testing.T) {
	t.Parallel()
	l := newLoopback(t)
	srv := &http.Server{ConnContext: ConnContext, ConnState: ConnState, ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Proved(r); fmt.Fprintln(w, "ok") })}
	go srv.Serve(HTTPListener(l.ln, NewPool(Limits{Conns: 2, PerSource: 2}))) //nolint:errcheck // ends with the test
	t.Cleanup(func() { srv.Close() })
	for _, src := range []string{"127.0.0.2", "127.0.0.3"} {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
		c, err := d.Dial("tcp", l.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := c.Write([]byte("G")); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the server reads the byte at once; give it ample time
	for i := range 2 {
		c, err := net.Dial("tcp", l.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("member request %d behind two stalled partial headers: %v", i, err)
		}
		resp.Body.Close()
	}
}
