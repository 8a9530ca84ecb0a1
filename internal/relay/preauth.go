package relay

import (
	"net"
	"time"

	"github.com/hashicorp/yamux"

	"github.com/diperf/diperf/internal/preauth"
)

// Reserve is what a relay keeps of its open-file limit for itself beside
// its testers' connections: its Unix socket, stdio, the listener, the
// runtime's own.
const Reserve = 64

// roomWait is how long a connection that spoke may wait for a place
// among the relayed ones before it is closed (its tester tries again).
const roomWait = 10 * time.Second

// relayWorker is what Serve holds: its session to the controller, a
// place per relayed connection, and the connections not yet relayed.
type relayWorker struct {
	sess *yamux.Session
	room chan struct{} // a place per relayed connection
	pool *preauth.Pool // connections accepted, not yet relayed
}

// waitRoom waits until a place is free (it does not take it: a
// connection takes one once it spoke); false once the session ended.
func (w *relayWorker) waitRoom() bool {
	select {
	case w.room <- struct{}{}:
		<-w.room
		return true
	case <-w.sess.CloseChan():
		return false
	}
}

// accepted counts nc among the connections not yet relayed, or closes it
// at once when there is no room (the pool closes an idle one to make
// room first), and relays it once it spoke.
func (w *relayWorker) accepted(nc net.Conn) {
	e, err := w.pool.Admit(nc)
	if err != nil {
		nc.Close()
		return
	}
	go w.relayOnceSpoken(nc, e)
}

// relayOnceSpoken waits for nc's first byte, then for a place, and
// relays nc; it closes nc when either does not come in time.
func (w *relayWorker) relayOnceSpoken(nc net.Conn, e *preauth.Entry) {
	defer e.Release() // once relayed, the controller counts it (its own pool)
	rc, err := preauth.WaitFirstByte(nc, e.Accepted().Add(preauth.FirstByteTimeout))
	if err != nil {
		nc.Close()
		return
	}
	e.Spoke()
	t := time.NewTimer(roomWait)
	defer t.Stop()
	select {
	case w.room <- struct{}{}:
	case <-t.C:
		nc.Close()
		return
	case <-w.sess.CloseChan():
		nc.Close()
		return
	}
	e.Release()
	relayConn(w.sess, rc, func() { <-w.room })
}
