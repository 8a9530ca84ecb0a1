package controller

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// scriptListener returns the errors of its script, in order, then a
// connection, then net.ErrClosed; it records when each Accept was called.
type scriptListener struct {
	script []error
	t0     time.Time
	calls  []time.Duration
}

func (l *scriptListener) Accept() (net.Conn, error) {
	l.calls = append(l.calls, time.Since(l.t0))
	switch i := len(l.calls) - 1; {
	case i < len(l.script):
		return nil, l.script[i]
	case i == len(l.script):
		a, _ := net.Pipe()
		return a, nil
	}
	return nil, fmt.Errorf("accept: %w", net.ErrClosed)
}
func (l *scriptListener) Close() error   { return nil }
func (l *scriptListener) Addr() net.Addr { return &net.TCPAddr{} }

// TestAcceptBacksOff has Accept fail with EMFILE eight times, then
// succeed: the loop waits 5, 10, 20 ... ms (capped at 1 s) between tries,
// serves the connection that finally comes, logs the streak twice, and
// ends only when the listener is closed.
func TestAcceptBacksOff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emfile := &net.OpError{Op: "accept", Net: "tcp", Err: &osSyscallError{syscall.EMFILE}}
		l := &scriptListener{script: slices.Repeat([]error{emfile}, 8), t0: time.Now()}
		l.script = append(l.script, syscall.ECONNABORTED)
		var logged []string
		served := 0
		acceptEach(l, func(ev, d string) { logged = append(logged, ev+": "+d) }, func(c net.Conn) { served++; c.Close() })
		want := ms(0, 5, 15, 35, 75, 155, 315, 635, 1275, 2275, 2275)
		if !slices.Equal(l.calls, want) {
			t.Errorf("accept called at %v, want %v", l.calls, want)
		}
		if served != 1 {
			t.Errorf("%d connections served, want 1", served)
		}
		if len(logged) != 2 || !strings.Contains(logged[0], "too many open files") ||
			!strings.Contains(logged[1], "accept-recovered: accepting again after 9 failed accepts over 2.275s") {
			t.Errorf("logged %q, want the first error and the recovery", logged)
		}
	})
}

type osSyscallError struct{ errno syscall.Errno }

func (e *osSyscallError) Error() string { return "accept4: " + e.errno.Error() }
func (e *osSyscallError) Unwrap() error { return e.errno }

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// TestRejectLogIsBounded refuses 20,000 connections from one source and
// then from 1,000 sources over a minute: the log holds each source's
// first refusals and a few per window in full, then one summary a window.
func TestRejectLogIsBounded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var lines []string
		r := newRejectLog(func(ev string, _ int, _, d string) { mu.Lock(); lines = append(lines, ev+": "+d); mu.Unlock() })
		stop := r.flushEvery(rejectInterval)
		one := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}
		for i := range 20000 { // 0 to 14 s, never on a window's edge
			one.Port = 1 + i%60000
			r.reject(one, errors.New("authentication failed"))
			time.Sleep(700 * time.Microsecond)
		}
		time.Sleep(11 * time.Second)
		for i := range 1000 { // 25 s to 56 s
			r.reject(&net.TCPAddr{IP: net.IPv4(10, 1, byte(i/256), byte(i)), Port: 9}, errors.New("bad hello"))
			time.Sleep(31 * time.Millisecond)
		}
		stop()
		count := map[string]int{}
		size := 0
		for _, l := range lines {
			count[strings.SplitN(l, ":", 2)[0]]++
			size += len(l)
		}
		// 5 from the first source; 20 a window from the 1,000 others (4 windows)
		if count["rejected"] != 5+4*rejectFullPerWindow || count["rejected-summary"] != 6 {
			t.Errorf("logged %v, want 85 in full and 6 summaries", count)
		}
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.HasPrefix(l, "rejected-summary: 14281 more connections rejected in 10s from 1 sources (most from 10.0.0.1: 14281); last: authentication failed")
		}) {
			t.Errorf("no summary of the first window:\n%s", strings.Join(lines, "\n"))
		}
		if size > 20000 {
			t.Errorf("21,000 refusals took %d bytes of log", size)
		}
	})
}

// TestHandshakesAreCapped fills the handshake cap with connections a
// testbed opened (not the pool's: no first-byte wait) that say nothing:
// the next one is not answered until one of them times out, then it is;
// the silent ones are logged as rejected.
func TestHandshakesAreCapped(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ev, err := rundir.CreateEventLog(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := &controller{cred: protocol.Controller{Secret: []byte("s3cret"), Run: "r"}, events: ev, gate: make(chan struct{}, lockGate)}
		g := &guard{handshakes: newHandshakeGate(2, 2), rejects: newRejectLog(ev.Add)}
		t0 := time.Now()
		for range 2 {
			silent, theirs := net.Pipe()
			defer silent.Close()
			go c.serve(theirs, g, nil)
		}
		time.Sleep(time.Second)
		mine, theirs := net.Pipe()
		go c.serve(theirs, g, nil)
		conn := protocol.NewConn(mine)
		defer conn.Close()
		hello := protocol.Hello{Proto: protocol.Version, Slot: 0, ID: "h:1", Nonce: protocol.NewNonce()}
		if err := conn.WriteJSON(protocol.TypeHello, hello); err != nil {
			t.Fatal(err)
		}
		var ch protocol.Challenge
		if err := conn.Expect(protocol.TypeChallenge, &ch); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(t0); waited != handshakeTimeout {
			t.Errorf("answered after %v, want when the silent ones timed out (%v)", waited, handshakeTimeout)
		}
		if ch.Run != "r" || len(ch.Nonce) != protocol.NonceSize || len(ch.Kex) != protocol.KexSize {
			t.Errorf("challenge %+v: want the run's name, a nonce and a key share", ch)
		}
		mine.Close()
		time.Sleep(2 * time.Second) // the silent ones are told why, with a write deadline of 1 s
		ev.Close()
		n := 0
		for _, e := range readEvents(t, dir) {
			if e.Event == "rejected" && strings.Contains(e.Detail, "timeout") {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d silent connections logged as rejected, want 2", n)
		}
	})
}

func readEvents(t *testing.T, dir string) []rundir.Event { return events(t, filepath.Clean(dir)) }
