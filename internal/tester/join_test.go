package tester

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/transport"
)

// answer is what a scripted controller does with one connection.
type answer int

const (
	unreachable answer = iota // the dial fails
	busy                      // an Error frame saying busy, then hang up
	hangUp                    // hang up before anything
	refuse                    // an Error frame for another reason
	impostor                  // a controller holding the token but not the key
	admit                     // the real handshake, then a test description
	full                      // the real handshake, then "every slot is taken" (ErrorMsg.Full)
	fullEarly                 // "every slot is taken" before any handshake: anyone can say it
)

var errUnreachable = errors.New("connect: connection refused")

// scriptTransport answers the dials of the controller's address as its
// script says, one answer a dial (the last one for the rest), and
// records when each dial was made.
type scriptTransport struct {
	secret testCred
	script []answer
	dials  []time.Time
}

func (s *scriptTransport) Listen(string) (net.Listener, error) { return nil, errors.ErrUnsupported }

func (s *scriptTransport) Dial(_ context.Context, _ string) (net.Conn, error) {
	s.dials = append(s.dials, time.Now())
	a := s.script[min(len(s.dials), len(s.script))-1]
	if a == unreachable {
		return nil, errUnreachable
	}
	mine, theirs := net.Pipe()
	if a != admit && a != impostor && a != full { // a pipe has no buffer: take the Hello as a socket would
		go func() { _, _ = io.Copy(io.Discard, theirs) }()
	}
	go s.answer(protocol.NewConn(theirs), a)
	return mine, nil
}

// answer plays the controller's side of one connection.
func (s *scriptTransport) answer(conn *protocol.Conn, a answer) {
	defer conn.Close()
	switch a {
	case busy:
		_ = conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: "busy: too many connections", Busy: true})
	case refuse:
		_ = conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: "authentication failed"})
	case impostor:
		_, key, _ := ed25519.GenerateKey(nil) // it holds the token, not the controller's key
		fakeAdmit(conn, testCred{tok: s.secret.tok, key: key})
	case fullEarly:
		_ = conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: "no tester slot is waiting to join: all 2 are taken", Full: true})
	case full:
		if fakeAdmit(conn, s.secret) {
			_ = conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: "no tester slot is waiting to join: all 2 are taken", Full: true})
		}
	case admit:
		if fakeAdmit(conn, s.secret) {
			_ = conn.WriteJSON(protocol.TypeTestDesc, joinDesc)
			_, _, _ = conn.Read() // until the tester hangs up
		}
	}
}

var joinDesc = protocol.TestDesc{Client: protocol.ClientDesc{Kind: protocol.ClientExec, Argv: []string{"true"}}, DurationNs: 1e9, TimeoutNs: 1e9,
	SyncIntervalNs: 1e9, SyncProbes: 1, BatchNs: 1e9, TimeServer: "ts:1", TimeTransport: "tcp"}

// joinWith runs a tester's join on script with window, and returns what
// it logged and its error.
func joinWith(ctx context.Context, st *scriptTransport, window time.Duration, wait bool) (string, error) {
	var log bytes.Buffer
	t := &Tester{o: Options{Controller: "ctl:1", Token: st.secret.tok, Transport: st, Log: &log, JoinRetry: window, Reach: reachOf(wait)}}
	c, err := t.join(ctx)
	if c != nil {
		c.Close()
	}
	return log.String(), err
}

// reachOf is Join when the tester waits for its controller, else Dial.
func reachOf(wait bool) transport.Reach {
	if wait {
		return transport.Join
	}
	return transport.Dial
}

// gaps are the waits between st's dials.
func (s *scriptTransport) gaps() []time.Duration {
	var g []time.Duration
	for i := 1; i < len(s.dials); i++ {
		g = append(g, s.dials[i].Sub(s.dials[i-1]))
	}
	return g
}

// TestJoinRetriesBusyAndCutOff has the controller refuse a tester for want
// of room twice and hang up on it once before the handshake: it tries
// again after 100, 200 and 400 ms, then joins, and says so.
func TestJoinRetriesBusyAndCutOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &scriptTransport{secret: newTestCred(t), script: []answer{busy, busy, hangUp, admit}}
		log, err := joinWith(t.Context(), st, time.Minute, false)
		if err != nil {
			t.Fatalf("join: %v\n%s", err, log)
		}
		want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
		if got := st.gaps(); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("dials %v apart, want %v", got, want)
		}
		if !strings.Contains(log, "busy: too many connections") || !strings.Contains(log, "trying again for up to 1m0s") || !strings.Contains(log, "after 4 attempts") {
			t.Errorf("log %q does not say it was refused, tried again, and joined", log)
		}
	})
}

// TestJoinStopsAtOnce checks what ends a join at its first attempt,
// whatever the window: a refusal for anything but room (a bad
// credential), a controller that cannot prove itself, and, unless told to
// wait for it, a controller that does not answer.
func TestJoinStopsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    answer
		want string
	}{
		{"refused", refuse, "peer: authentication failed"},
		{"impostor", impostor, "could not prove it is the run's controller"},
		{"unreachable", unreachable, "connect to controller ctl:1: connect: connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := &scriptTransport{secret: newTestCred(t), script: []answer{tc.a, admit}}
				start := time.Now()
				log, err := joinWith(t.Context(), st, time.Hour, false)
				if err == nil || !strings.Contains(err.Error(), tc.want) || len(st.dials) != 1 || time.Since(start) != 0 {
					t.Errorf("join: %v after %d dials and %v, want %q at once\n%s", err, len(st.dials), time.Since(start), tc.want, log)
				}
			})
		})
	}
}

// TestJoinWaitsForController has the controller not answer for 20 s: a
// tester told to wait for it (--join) tries again, backing off from
// 100 ms to 5 s, then joins; one whose window ends first gives up naming
// the address, the window and the cause; an interrupted one at once.
func TestJoinWaitsForController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &scriptTransport{secret: newTestCred(t), script: append(make([]answer, 10), admit)}
		if log, err := joinWith(t.Context(), st, time.Minute, true); err != nil || !strings.Contains(log, "after 11 attempts") {
			t.Fatalf("join: %v\n%s", err, log)
		}
		want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000}
		for i, g := range st.gaps() {
			if g != want[i]*time.Millisecond {
				t.Fatalf("dials %v apart, want %v ms", st.gaps(), want)
			}
		}

		st = &scriptTransport{script: []answer{unreachable}}
		start := time.Now()
		_, err := joinWith(t.Context(), st, 30*time.Second, true)
		if !errors.Is(err, errUnreachable) || !strings.Contains(err.Error(), "ctl:1") || !strings.Contains(err.Error(), "--join-retry 30s") || time.Since(start) != 30*time.Second {
			t.Errorf("gave up with %v after %v, want the address, the window and the cause after 30s", err, time.Since(start))
		}

		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		if _, err := joinWith(ctx, st, time.Hour, true); !errors.Is(err, context.Canceled) || time.Since(start) != time.Second {
			t.Errorf("interrupted join: %v after %v, want context.Canceled after 1s", err, time.Since(start))
		}
	})
}
