package controller

import (
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// admitPiped runs the controller's side of a handshake on one end of a
// pipe and a joining tester's (any slot) on the other; it returns channels
// with the controller's outcome and the tester's.
func admitPiped(t *testing.T, c *controller) (<-chan error, <-chan error) {
	t.Helper()
	srv, cli := net.Pipe()
	t.Cleanup(func() { srv.Close(); cli.Close() })
	ctl, tst := make(chan error, 1), make(chan error, 1)
	go func() {
		s, err := c.admit(protocol.NewConn(srv))
		if err == nil && s.rec.Slot != 0 {
			err = errors.New("admitted to the wrong slot")
		}
		ctl <- err
	}()
	go func() {
		conn := protocol.NewConn(cli)
		tst <- rogueHandshake(conn, protocol.AnySlot, c.secret, protocol.Version)
	}()
	return ctl, tst
}

// earlyController is a controller between its first accept and the
// schedule making its slots: no slot exists yet.
func earlyController(t *testing.T) *controller {
	t.Helper()
	c, err := newController(Options{Experiment: testExperiment(t, 1, time.Second), Secret: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	if c.events, err = rundir.CreateEventLog(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	c.times = &timeService{addr: "127.0.0.1:1"}
	return c
}

// TestJoinBeforeSlotsWaits checks that a tester joining before the
// schedule made its slot (an engine starts testers before the controller:
// they sit in the listen backlog and are accepted first thing) is given
// the slot once it is made, not refused; and that one for which no slot
// comes is refused after the handshake timeout.
func TestJoinBeforeSlotsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := earlyController(t)
		ctl, tst := admitPiped(t, c)
		synctest.Wait()
		select {
		case err := <-ctl:
			t.Fatalf("admitted or refused before any slot existed: %v", err)
		default:
		}
		c.newSlot(0)
		c.allSlotsMade()
		if err := <-ctl; err != nil {
			t.Fatalf("controller: %v", err)
		}
		if err := <-tst; err != nil {
			t.Fatalf("tester: %v", err)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		c := earlyController(t)
		ctl, _ := admitPiped(t, c)
		start := time.Now()
		if err := <-ctl; !errors.Is(err, errNoSlot) {
			t.Fatalf("no slot ever came: got %v, want %v", err, errNoSlot)
		}
		if waited := time.Since(start); waited < handshakeTimeout {
			t.Errorf("refused after %v, before the handshake timeout %v", waited, handshakeTimeout)
		}
	})
}
