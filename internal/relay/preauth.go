package relay

import (
	"errors"
	"net"
	"os"
	"time"

	"github.com/hashicorp/yamux"

	"github.com/diperf/diperf/internal/preauth"
)

// Reserve is what a relay keeps of its open-file limit for itself beside
// its testers' connections: its Unix socket, stdio, the listener, the
// runtime's own.
const Reserve = 64

// Places of a relay's connections: each one holds a place from its
// acceptance; one still silent after silentPlace gives it back until it
// speaks (then it waits at most roomWait for one, or is closed: its tester
// tries again). A tester speaks at once and keeps its place, so that a
// relay that holds --max-conns testers leaves the next ones to the other
// relays; idle connections take no place for long.
const (
	silentPlace = 10 * time.Millisecond
	roomWait    = 10 * time.Second
)

// relayWorker is what Serve holds: its session to the controller, a
// place per connection it holds, and the connections not yet relayed.
type relayWorker struct {
	sess *yamux.Session
	room chan struct{} // a place per connection relayed, or accepted less than silentPlace ago
	pool *preauth.Pool // connections accepted, not yet relayed
}

// place waits for a free place and takes it; false once the session
// ended.
func (w *relayWorker) place() bool {
	select {
	case w.room <- struct{}{}:
		return true
	case <-w.sess.CloseChan():
		return false
	}
}

// take takes a place, waiting up to wait; false if none came (or the
// session ended).
func (w *relayWorker) take(wait time.Duration) bool {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case w.room <- struct{}{}:
		return true
	case <-t.C:
	case <-w.sess.CloseChan():
	}
	return false
}

// accepted counts nc, which holds a place, among the connections not yet
// relayed, or closes it at once when there is no room (the pool closes an
// idle one to make room first), and relays it once it spoke.
func (w *relayWorker) accepted(nc net.Conn) {
	e, err := w.pool.Admit(nc)
	if err != nil {
		nc.Close()
		<-w.room
		return
	}
	go w.relayOnceSpoken(nc, e)
}

// relayOnceSpoken relays nc once it spoke (firstByte); it closes nc when
// no byte or no place comes in time, or the pool closed it to make room.
func (w *relayWorker) relayOnceSpoken(nc net.Conn, e *preauth.Entry) {
	defer e.Release()
	rc, placed, err := w.firstByte(nc, e)
	if err != nil {
		nc.Close()
		if placed {
			<-w.room
		}
		return
	}
	e.Release() // relayed, the controller counts it (its own pool)
	relayConn(w.sess, rc, func() { <-w.room })
}

// firstByte waits for nc's first byte: holding nc's place for
// silentPlace, then without it for the rest of preauth.FirstByteTimeout,
// and then for a place again, up to roomWait. placed says whether nc
// holds a place.
func (w *relayWorker) firstByte(nc net.Conn, e *preauth.Entry) (rc net.Conn, placed bool, err error) {
	rc, err = preauth.WaitFirstByte(nc, e.Accepted().Add(silentPlace))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return rc, true, err
	}
	<-w.room
	if rc, err = preauth.WaitFirstByte(nc, e.Accepted().Add(preauth.FirstByteTimeout)); err != nil {
		return nil, false, err
	}
	if !w.take(roomWait) {
		return nil, false, errors.New("relay: no place came free")
	}
	return rc, true, nil
}
