package relay

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// TestSilentConnectionsTakeNoPlace opens 20 connections that send nothing
// to a worker that relays 3 at most: a tester that then speaks is relayed
// at once, the silent ones never reach the controller, and the worker
// closes them once they have been silent preauth.FirstByteTimeout.
func TestSilentConnectionsTakeNoPlace(t *testing.T) {
	h := newEchoHandler()
	ln, _ := startPool(t, 1, 3, h, &logSink{})
	var silent []net.Conn
	for range 20 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent = append(silent, c)
	}
	time.Sleep(200 * time.Millisecond) // the worker has accepted them
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	_ = c.SetDeadline(time.Now().Add(preauth.FirstByteTimeout / 2))
	if _, err := io.WriteString(c, "hello\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.HasSuffix(got, "hello\n") {
		t.Fatalf("a tester behind 20 silent connections got %q, %v after %v", got, err, time.Since(start))
	}
	for i, s := range silent {
		_ = s.SetReadDeadline(time.Now().Add(preauth.FirstByteTimeout + 5*time.Second))
		if _, err := s.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("silent connection %d: %v, want closed by the relay", i, err)
		}
	}
	if n := h.count(); n != 1 {
		t.Errorf("%d connections reached the controller, want the tester's alone", n)
	}
}
