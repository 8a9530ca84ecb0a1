package tester

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/transport"
)

// JoinBackoff spaces a tester's attempts to join its controller: waits
// doubling from 100 ms to 5 s, for Options.JoinRetry in all.
var JoinBackoff = Backoff{First: 100 * time.Millisecond, Max: 5 * time.Second}

// join reaches the controller the way o.Reach says and runs the
// handshake, and returns the connection: Attached on o.Conn, once; Dial
// and Join by dialling. Within o.JoinRetry a dialling tester tries again
// when the controller refused it for want of room (busy) or the
// connection ended before the handshake did, and, with Join, while the
// controller does not answer. A refusal for anything else (a bad
// credential, no slot left) or a controller that failed its proof ends it
// at once, the controller told why.
func (t *Tester) join(ctx context.Context) (net.Conn, error) {
	switch {
	case t.o.Reach == transport.Attached && t.o.Conn == nil:
		return nil, errors.New("tester: attached to the controller, yet given no connection")
	case t.o.Reach == transport.Attached:
		t.conn = protocol.NewConn(t.o.Conn)
		return t.o.Conn, t.shake()
	case t.o.Conn != nil:
		return nil, fmt.Errorf("tester: given a connection, yet told to reach the controller by %v", t.o.Reach)
	}
	b := JoinBackoff
	b.Window = t.o.JoinRetry
	var final error
	var c net.Conn
	attempts, stopped, err := b.Retry(ctx, func() (err error) {
		c, err = t.attempt(ctx)
		if err != nil && !t.retryable(err) {
			final = err
			return nil
		}
		return err
	}, func(err error) {
		fmt.Fprintf(t.o.Log, "diperf tester: %s; trying again for up to %v\n", notYet(t.o.Controller, err), t.o.JoinRetry)
	})
	if err = t.outcome(ctx, attempts, stopped, err, final); err != nil {
		return nil, err
	}
	return c, nil
}

// outcome says how the join's attempts ended: the error that ended them
// (final: one not to try again after), or nil once joined.
func (t *Tester) outcome(ctx context.Context, attempts int, stopped bool, err, final error) error {
	switch {
	case final != nil:
		return final
	case stopped:
		return fmt.Errorf("tester: joining the controller at %s: %w", t.o.Controller, ctx.Err())
	case err != nil && attempts > 1:
		return fmt.Errorf("tester: could not join the controller at %s within --join-retry %v (%d attempts): %w",
			t.o.Controller, t.o.JoinRetry, attempts, err)
	case err != nil:
		return err
	case attempts > 1:
		fmt.Fprintf(t.o.Log, "diperf tester: joined the controller at %s after %d attempts\n", t.o.Controller, attempts)
	}
	return nil
}

// attempt dials the controller and runs the handshake once.
func (t *Tester) attempt(ctx context.Context) (net.Conn, error) {
	c, err := t.o.Transport.Dial(ctx, t.o.Controller)
	if err != nil {
		return nil, &dialError{fmt.Errorf("tester: connect to controller %s: %w", t.o.Controller, err)}
	}
	t.conn = protocol.NewConn(c)
	if err := t.shake(); err != nil {
		t.conn.Close()
		return nil, err
	}
	return c, nil
}

// shake runs the handshake on t.conn; on an error that ends the join it
// tells the controller why.
func (t *Tester) shake() error {
	err := t.handshake()
	if err != nil && (t.o.Reach == transport.Attached || !t.retryable(err)) {
		_ = t.conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: err.Error()})
	}
	return err
}

// dialError is a failure to reach the controller at all.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// retryable reports whether a failed attempt to join may be tried again:
// the controller refused for want of room, or the connection ended or went
// silent before the handshake did; or (with Reach Join) it could not be
// reached. Anything else the controller said, or a proof that
// failed, is final.
func (t *Tester) retryable(err error) bool {
	var pe *protocol.PeerError
	var de *dialError
	switch {
	case errors.As(err, &pe):
		return pe.Busy
	case errors.As(err, &de):
		return t.o.Reach == transport.Join
	}
	for _, cut := range []error{io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe, syscall.ECONNRESET, syscall.EPIPE, net.ErrClosed, os.ErrDeadlineExceeded} {
		if errors.Is(err, cut) {
			return true
		}
	}
	return false
}
