package directory

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// TestServeUnprovedPool serves over TLS with room for 2 connections not
// yet proved: three members each keep a proved connection open (theirs
// leave the pool at their first request with the token), 20 idle
// connections from as many sources come, and a fourth member's request on
// a new connection is still answered within a second; at most 2 of the
// idle connections stay open.
func TestServeUnprovedPool(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	store, err := OpenStore(filepath.Join(dir, "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadTLS(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ServeWith(ctx, ln, NewServer(store, Options{Token: []byte(testToken)}).Handler(), //nolint:errcheck // ends with the test
		ServeConfig{TLS: cfg, Unproved: preauth.Limits{Conns: 2, PerSource: 2}})
	member := func() *Client {
		hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		c, err := NewClient("https://"+ln.Addr().String(), []byte(testToken), hc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Sensors(ctx, ""); err != nil {
			t.Fatalf("a member's request: %v", err)
		}
		return c
	}
	for range 3 {
		member()
	}
	var idle []net.Conn
	for i := range 20 {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 5, 0, byte(i+1))}}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	member()
	open := 0
	for _, c := range idle {
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			open++
		}
	}
	if open > 2 {
		t.Errorf("%d idle connections open, want at most 2", open)
	}
}
