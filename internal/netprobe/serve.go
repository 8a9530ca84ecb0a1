package netprobe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Reasons a test is cut short.
var (
	errOverBytes = errors.New("past its byte allowance")
	errPipelined = errors.New("the client sent a request before it had the answer to the last one")
)

// serveTest runs a proved peer's test: the Budget's leave, the slot for a
// bandwidth test, the answer, then the test, all within its test time and
// grace; what it cost goes back to the Budget.
func (s *Server) serveTest(c net.Conn, req Request, nonce, body []byte) {
	peer := preauth.Source(c.RemoteAddr())
	maxBytes, done, err := s.admit(peer, req.TestTime)
	if err != nil {
		s.overBudget.Add(1)
		if s.refusalLog.Allow() {
			s.log("refused a %s test from %s: %v (said at most once every %v; all are counted)", req.Kind, c.RemoteAddr(), err, refusalLogEvery)
		}
		_, _ = c.Write(append([]byte{statusRefused}, replyMAC(s.token, nonce, body, statusRefused)...))
		return
	}
	if req.Kind == KindBandwidth {
		hctx, release, err := s.slot.Take(context.Background(), "a bandwidth test served to "+c.RemoteAddr().String(), req.TestTime+grace)
		if err != nil {
			done(0, 0)
			s.busy.Add(1)
			_, _ = c.Write(append([]byte{statusBusy}, replyMAC(s.token, nonce, body, statusBusy)...))
			return
		}
		defer release()
		defer context.AfterFunc(hctx, func() { c.Close() })()
	}
	_ = c.SetDeadline(until(req.TestTime))
	if _, err := c.Write(append([]byte{statusOK}, replyMAC(s.token, nonce, body, statusOK)...)); err != nil {
		done(0, 0)
		return
	}
	start := time.Now()
	moved, err := s.run(c, req, maxBytes, nonce, body)
	done(time.Since(start), moved)
	if errors.Is(err, errOverBytes) || errors.Is(err, errPipelined) {
		s.cut.Add(1)
		s.log("cut a %s test from %s after %d bytes: %v", req.Kind, c.RemoteAddr(), moved, err)
	}
}

// run runs the test and counts it; it returns the bytes moved.
func (s *Server) run(c net.Conn, req Request, maxBytes uint64, nonce, body []byte) (uint64, error) {
	if req.Kind == KindLatency {
		n, moved, err := echo(c, req.Size, maxBytes)
		if n > 0 {
			s.rrServed.Add(1)
		}
		return moved, err
	}
	got, err := receive(c, req.TestTime, maxBytes, s.token, nonce, body)
	if err != nil {
		return got, err
	}
	s.bwServed.Add(1)
	left := int64(-1) // no bound
	if maxBytes > 0 {
		left = int64(maxBytes - got) // receive moved at most maxBytes
	}
	return got + drain(c, left), nil
}

// admit asks the Budget, if any.
func (s *Server) admit(peer string, testTime time.Duration) (uint64, func(time.Duration, uint64), error) {
	if s.Budget == nil {
		return 0, func(time.Duration, uint64) {}, nil
	}
	return s.Budget.Serve(peer, testTime)
}

func (s *Server) log(format string, a ...any) {
	if s.Log != nil {
		s.Log(fmt.Sprintf(format, a...))
	}
}

// ErrRefused is returned when the far end refused the test for its
// budget: its share of serving for this peer, or its whole serving
// budget, is spent for now (see Budget). The caller counts the test as
// missed; the far end has room again as its window moves on.
var ErrRefused = errors.New("netprobe: the far end refused the test: its test budget, or its share for this peer, is spent for now")

// refusalLogEvery is how often at most the server says it refused a test
// for its budget: a member may ask again as fast as it likes.
const refusalLogEvery = 10 * time.Second

// every lets one event through per interval.
type every struct {
	last atomic.Int64 // unix ns of the last one let through
}

// Allow reports whether an event now is the first of its interval.
func (e *every) Allow() bool {
	now, last := time.Now().UnixNano(), e.last.Load()
	return (last == 0 || now-last >= int64(refusalLogEvery)) && e.last.CompareAndSwap(last, now)
}
