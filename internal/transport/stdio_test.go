package transport

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestStdio carries bytes both ways over a pair of pipes, as a tester
// speaks over its stdin and stdout; the far end closing is EOF, and a
// read deadline works.
func TestStdio(t *testing.T) {
	inR, inW, _ := os.Pipe()   // what the peer writes, the conn reads
	outR, outW, _ := os.Pipe() // what the conn writes, the peer reads
	c := Stdio(inR, outW, "stdio", "ssh:h1")
	defer c.Close()
	if c.RemoteAddr().String() != "ssh:h1" || c.LocalAddr().Network() != "stdio" {
		t.Errorf("addresses %v %v", c.LocalAddr(), c.RemoteAddr())
	}
	go func() { _, _ = inW.Write([]byte("hello")) }()
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("read %q %v", buf, err)
	}
	if _, err := c.Write([]byte("world")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 5)
	if _, err := io.ReadFull(outR, got); err != nil || string(got) != "world" {
		t.Fatalf("peer read %q %v", got, err)
	}
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read past the deadline: %v", err)
	}
	_ = c.SetReadDeadline(time.Time{})
	inW.Close()
	if _, err := c.Read(buf); !errors.Is(err, io.EOF) {
		t.Errorf("read after the peer closed: %v", err)
	}
}

// TestStdioWriteFailsWhenStreamGone: a write to a stream whose reader is
// gone fails rather than blocking forever.
func TestStdioWriteFailsWhenStreamGone(t *testing.T) {
	outR, outW, _ := os.Pipe()
	outR.Close()
	c := Stdio(strings.NewReader(""), outW, "a", "b")
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		var err error
		for range 4 {
			if _, err = c.Write(bytes.Repeat([]byte("x"), 1<<16)); err != nil {
				break
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("writes to a closed stream succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to a closed stream blocked")
	}
}
