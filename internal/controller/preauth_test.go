package controller

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/preauth"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// preauthController is a controller with only what serve needs before the
// slot is bound, and a guard with pool limits lim and 2 handshakes at once.
func preauthController(t *testing.T, lim preauth.Limits) (*controller, string) {
	t.Helper()
	dir := t.TempDir()
	ev, err := rundir.CreateEventLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := &controller{cred: protocol.Controller{Secret: []byte("s3cret"), Run: "r"}, events: ev, gate: make(chan struct{}, lockGate)}
	c.guard = &guard{pool: preauth.NewPool(lim), handshakes: newHandshakeGate(2, 2), rejects: newRejectLog(ev.Add)}
	return c, dir
}

// rejectedFor reads the refusals logged in dir: those logged in full
// whose reason holds text, and all of them (a summary counts those not
// logged in full).
func rejectedFor(t *testing.T, c *controller, dir, text string) (full, all int) {
	t.Helper()
	c.guard.rejects.flush()
	c.events.Close()
	for _, e := range readEvents(t, dir) {
		var more int
		switch {
		case e.Event == "rejected":
			all++
			if strings.Contains(e.Detail, text) {
				full++
			}
		case e.Event == "rejected-summary":
			_, _ = fmt.Sscanf(e.Detail, "%d more", &more)
			all += more
		}
	}
	return full, all
}

// TestSilentConnectionsHoldNoHandshake opens ten connections that say
// nothing, where two handshakes may run at once: a tester that then sends
// its Hello is answered at once (the silent ones hold no handshake
// place), and the silent ones are closed and logged when they have been
// silent for preauth.FirstByteTimeout.
func TestSilentConnectionsHoldNoHandshake(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, dir := preauthController(t, preauth.Limits{Conns: 100, PerSource: 100})
		t0 := time.Now()
		for range 10 {
			silent, theirs := net.Pipe()
			defer silent.Close()
			c.accepted(theirs)
		}
		time.Sleep(time.Second)
		mine, theirs := net.Pipe()
		c.accepted(theirs)
		conn := protocol.NewConn(mine)
		hello := protocol.Hello{Proto: protocol.Version, Slot: 0, ID: "h:1", Nonce: protocol.NewNonce()}
		if err := conn.WriteJSON(protocol.TypeHello, hello); err != nil {
			t.Fatal(err)
		}
		var ch protocol.Challenge
		if err := conn.Expect(protocol.TypeChallenge, &ch); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(t0); waited != time.Second {
			t.Errorf("answered %v after the silent ones came, want at once (1s)", waited)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if n := c.guard.pool.Held(); n != 1 {
			t.Errorf("%d connections held %v after the silent ones came, want the tester's alone", n, preauth.FirstByteTimeout)
		}
		conn.Close()
		c.sessions.Wait()
		// 10 silent, and the tester that hung up; 5 from one source in full
		full, all := rejectedFor(t, c, dir, "sent nothing within 2s of its connection; closed")
		if full != rejectFullPerSource || all != 11 {
			t.Errorf("%d silent connections logged as such in full, %d refusals in all; want %d and 11", full, all, rejectFullPerSource)
		}
	})
}

// TestRefusedAtOnceWhenFull fills a pool of two with connections that
// spoke: the next one is answered at once with an Error frame that says
// the controller is busy (a tester tries again), closed, and logged.
func TestRefusedAtOnceWhenFull(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, dir := preauthController(t, preauth.Limits{Conns: 2, PerSource: 2})
		for range 2 {
			talker, theirs := net.Pipe()
			defer talker.Close()
			c.accepted(theirs)
			go func() { _, _ = talker.Write([]byte{0}) }() // a byte, then nothing
		}
		synctest.Wait()
		mine, theirs := net.Pipe()
		start := time.Now()
		answer := make(chan error, 1)
		go func() { // a pipe has no buffer: read as the refusal is written
			var h protocol.Challenge
			answer <- protocol.NewConn(mine).Expect(protocol.TypeChallenge, &h)
		}()
		c.accepted(theirs)
		err := <-answer
		var pe *protocol.PeerError
		if !errors.As(err, &pe) || !pe.Busy || !strings.Contains(pe.Msg, "2 connections from pipe have not proved themselves yet") || time.Since(start) != 0 {
			t.Errorf("the third connection got %v after %v, want a busy Error frame at once", err, time.Since(start))
		}
		mine.Close()
		time.Sleep(handshakeTimeout + time.Second) // the talkers time out
		c.sessions.Wait()
		if full, _ := rejectedFor(t, c, dir, "the most one source may hold; try again"); full != 1 {
			t.Errorf("%d busy refusals logged, want 1", full)
		}
	})
}

// TestHandshakeShareOfOneSource has one source take its share (2 of 4
// handshake places): its next connection waits, and times out, while
// another source still gets its places at once; a place given back goes
// to a waiting one; no source's share outlives its connections.
func TestHandshakeShareOfOneSource(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newHandshakeGate(4, 2)
		var releases []func()
		for _, src := range []string{"a", "a", "b", "b"} {
			r, ok := h.acquire(src, time.Second)
			if !ok {
				t.Fatalf("source %s did not get a place at once", src)
			}
			releases = append(releases, r)
		}
		start := time.Now()
		if _, ok := h.acquire("a", time.Second); ok || time.Since(start) != time.Second {
			t.Errorf("over its share, source a got a place (%v) after %v; want none after 1s", ok, time.Since(start))
		}
		if _, ok := h.acquire("c", time.Second); ok {
			t.Error("source c got a place with all four taken")
		}
		go func() {
			time.Sleep(300 * time.Millisecond)
			releases[0]()
		}()
		start = time.Now()
		r, ok := h.acquire("a", time.Second)
		if !ok || time.Since(start) != 300*time.Millisecond {
			t.Errorf("source a waited %v for a place given back (got %v), want 300ms", time.Since(start), ok)
		}
		r()
		for _, r := range releases[1:] {
			r()
		}
		if n := len(h.sources); n != 0 {
			t.Errorf("%d source shares kept with no connection", n)
		}
	})
}
