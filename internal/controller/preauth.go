package controller

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/diperf/diperf/internal/preauth"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/timeserver"
)

// refuseWrite bounds the write of the answer to a connection refused at
// once (a fresh socket's empty buffer takes it without waiting).
const refuseWrite = 100 * time.Millisecond

// otherServers is what a controller process keeps of its open files for
// its other servers beside testbed.OwnFiles: the dashboard's connections (its own
// pool, package dashboard) and the browsers that proved themselves to it.
const otherServers = 96

// freeFiles is what the open-file limit leaves beside testbed.OwnFiles and the
// other servers: for the connections not yet proved, and those of the
// controller's own TCP time server.
func (c *controller) freeFiles() int {
	return preauth.FreeFiles(testbed.OwnFiles(c.exp, c.path.Relays) + otherServers)
}

// timeServerConns caps the connections of the controller's own TCP time
// server: a quarter of freeFiles, within preauth.MinConns and the time
// server's default.
func (c *controller) timeServerConns() int {
	return min(max(c.freeFiles()/4, preauth.MinConns), timeserver.DefaultMaxTCPConns)
}

// preAuthLimits are the limits of the connections not yet proved:
// Options.PreAuth, or what freeFiles leaves beside the TCP time server.
func (c *controller) preAuthLimits() preauth.Limits {
	if l := c.o.PreAuth; l.Conns > 0 {
		return l
	}
	free := c.freeFiles()
	if c.times.tcpAddr() != "" {
		free -= c.timeServerConns()
	}
	return preauth.ForFiles(free)
}

// accepted takes a connection from the listener or a relay: counted among
// those not yet proved and served, or refused at once when there is no
// room (the pool closes an idle one to make room first).
func (c *controller) accepted(nc net.Conn) {
	e, err := c.guard.pool.Admit(nc)
	if err != nil {
		c.guard.refuse(nc, err)
		return
	}
	c.sessions.Add(1)
	go func() {
		defer c.sessions.Done()
		c.serve(nc, c.guard, e)
	}()
}

// refuse answers nc, refused for want of room, with an Error frame that
// says so (Busy: a tester tries again), closes it and logs it.
func (g *guard) refuse(nc net.Conn, err error) {
	_ = nc.SetWriteDeadline(time.Now().Add(refuseWrite))
	_ = protocol.NewConn(nc).WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: err.Error(), Busy: true})
	nc.Close()
	g.rejects.reject(nc.RemoteAddr(), err)
}

// beforeHandshake is what comes before the handshake: nc's first byte within
// preauth.FirstByteTimeout of its acceptance (e nil: a connection the
// testbed made, not counted), then a handshake place within
// handshakeTimeout. It returns the connection to run the handshake on and
// what gives back its places, or false when nc was dropped (logged).
func (c *controller) beforeHandshake(nc net.Conn, g *guard, e *preauth.Entry) (net.Conn, func(), bool) {
	drop := func(err error) (net.Conn, func(), bool) {
		e.Release()
		if nc.RemoteAddr().String() != c.selfCheck {
			g.rejects.reject(nc.RemoteAddr(), err)
		}
		return nil, nil, false
	}
	if e != nil {
		var err error
		if nc, err = preauth.WaitFirstByte(nc, e.Accepted().Add(preauth.FirstByteTimeout)); err != nil {
			return drop(silentError(e, err))
		}
		e.Spoke()
	}
	release, ok := g.handshakes.acquire(preauth.Source(nc.RemoteAddr()), handshakeTimeout)
	if !ok {
		return drop(errors.New("too many handshakes in progress; closed unanswered"))
	}
	return nc, func() { release(); e.Release() }, true
}

// silentError says why a connection that sent nothing was dropped.
func silentError(e *preauth.Entry, err error) error {
	switch {
	case e.Evicted():
		return errors.New("sent nothing; closed to make room for a newer connection")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("sent nothing within %v of its connection; closed", preauth.FirstByteTimeout)
	}
	return fmt.Errorf("closed before it sent anything: %w", err)
}
