package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/hashicorp/yamux"

	"github.com/diperf/diperf/internal/preauth"
)

// Serve is a relay worker: it accepts tester connections from ln and
// carries each one as a stream of a yamux session over parent, at most
// maxConns at once (while it holds that many it leaves new connections in
// the shared accept queue, to the other workers). A connection is relayed
// once it sent its first byte, within preauth.FirstByteTimeout; until then
// it is one of the pool of connections not yet proved (package preauth: a
// total and a per-source cap, the oldest silent one closed to make room),
// and it gives its place back after silentPlace: silent connections keep
// no tester out. It returns when
// the session ends: the controller hung up, or died (its end of the Unix
// socket closed); every relayed connection is then closed. log, when not
// nil, hears accept errors.
func Serve(ln net.Listener, parent io.ReadWriteCloser, maxConns int, log func(string)) error {
	if maxConns < 1 {
		return fmt.Errorf("relay: maxConns %d, want at least 1", maxConns)
	}
	sess, err := yamux.Client(parent, muxConfig())
	if err != nil {
		return fmt.Errorf("relay: session: %w", err)
	}
	defer sess.Close()
	go func() {
		<-sess.CloseChan()
		ln.Close()
	}()
	w := &relayWorker{sess: sess, room: make(chan struct{}, maxConns),
		pool: preauth.NewPool(preauth.ForFiles(preauth.FreeFiles(uint64(maxConns) + Reserve)))}
	w.acceptAll(ln, log)
	return nil
}

// acceptAll accepts from ln while a place is free, until the session or
// ln ends; a failed Accept is retried after a wait that doubles from
// 5 ms to 1 s.
func (w *relayWorker) acceptAll(ln net.Listener, log func(string)) {
	var delay time.Duration
	for w.place() {
		nc, err := ln.Accept()
		if err == nil {
			delay = 0
			w.accepted(nc)
			continue
		}
		<-w.room
		if w.sess.IsClosed() || errors.Is(err, net.ErrClosed) {
			return
		}
		if log != nil && delay == 0 {
			log(fmt.Sprintf("accept: %v; retrying with back-off", err))
		}
		delay = min(max(2*delay, 5*time.Millisecond), time.Second)
		time.Sleep(delay)
	}
}

// relayConn carries one tester connection as a new stream, each way on its
// own goroutine, and calls done once both have ended.
func relayConn(sess *yamux.Session, nc net.Conn, done func()) {
	st, err := sess.OpenStream()
	if err != nil {
		nc.Close()
		done()
		return
	}
	if err := writeHeader(st, nc.RemoteAddr().String()); err != nil {
		st.Close()
		nc.Close()
		done()
		return
	}
	var left atomic.Int32
	left.Store(2)
	end := func() {
		if left.Add(-1) == 0 {
			done()
		}
	}
	go func() {
		defer end()
		toTester(st, nc)
	}()
	defer end()
	fromTester(nc, st)
}

// testerWriteTimeout is how long a write to a tester may block before the
// relay gives it up: the controller has given up on such a tester by then
// (a blocked write marks it lost after a few seconds), and closed its
// stream, which a blocked write would not notice.
const testerWriteTimeout = time.Minute

// toTester copies what the controller sends to the tester until the
// controller closes the stream, then closes the tester's connection.
func toTester(st *yamux.Stream, nc net.Conn) {
	defer nc.Close()
	buf := make([]byte, 512) // acks and heartbeats are small; a test description takes a few reads
	for {
		n, err := st.Read(buf)
		if n > 0 {
			_ = nc.SetWriteDeadline(time.Now().Add(testerWriteTimeout))
			if _, werr := nc.Write(buf[:n]); werr != nil {
				st.Close()
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// fromTester copies what the tester sends to the controller until the
// tester hangs up (or its connection fails), then closes the stream, which
// the controller reads as the end of the connection.
func fromTester(nc net.Conn, st *yamux.Stream) {
	defer st.Close()
	r := newIdleReader(nc)
	for {
		err := r.read(func(b []byte) error {
			_, err := st.Write(b)
			return err
		})
		if err != nil {
			if !errors.Is(err, io.EOF) {
				nc.Close()
			}
			return
		}
	}
}
