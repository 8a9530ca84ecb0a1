package dashboard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/live"
)

// TestIdleFloodIsBounded opens 100 connections that send nothing, each
// from its own source address: the dashboard keeps at most MaxUnproved of
// them open, and a request with the token on a new connection is
// answered at once.
func TestIdleFloodIsBounded(t *testing.T) {
	t.Parallel()
	s := start(t, live.New(live.Options{Name: "flood", Testers: 1}), Options{Token: "tok-0123456789abcdef"})
	var idle []net.Conn
	for i := range 100 {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 4, 0, byte(i+1))}}
		c, err := d.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	req, _ := http.NewRequest("GET", "http://"+s.Addr()+"/api/snapshot", nil)
	req.Header.Set("Authorization", "Bearer tok-0123456789abcdef")
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("a request behind 100 idle connections: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request behind 100 idle connections: %s", resp.Status)
	}
	open := 0
	for _, c := range idle {
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			open++
		}
	}
	if open > MaxUnproved {
		t.Errorf("%d idle connections open, want at most %d", open, MaxUnproved)
	}
}

// TestNoTokenOneRequest checks that a connection without the token gets
// its 401 and is closed: it cannot hold a place with request after
// request.
func TestNoTokenOneRequest(t *testing.T) {
	t.Parallel()
	s := start(t, live.New(live.Options{Name: "notoken", Testers: 1}), Options{Token: "tok-0123456789abcdef"})
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET /api/snapshot HTTP/1.1\r\nHost: x\r\n\r\n")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
		t.Errorf("without the token: %s, close %v; want 401 and the connection closed", resp.Status, resp.Close)
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("the connection without the token stayed open: %v", err)
	}
}
