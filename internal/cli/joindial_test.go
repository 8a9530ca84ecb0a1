package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/transport"
)

// flakyTransport fails every dial until up (virtual time) and records
// when each dial was made.
type flakyTransport struct {
	transport.Transport
	up    time.Time
	dials map[string][]time.Time
}

var errRefused = errors.New("connect: connection refused")

func (f *flakyTransport) Dial(_ context.Context, addr string) (net.Conn, error) {
	f.dials[addr] = append(f.dials[addr], time.Now())
	if time.Now().Before(f.up) {
		return nil, errRefused
	}
	a, b := net.Pipe()
	b.Close()
	return a, nil
}

// TestJoinDialRetries checks that a joining tester's first dial of its
// controller keeps trying, backing off from 100 ms to 5 s, until the
// controller answers; and that later dials (time server, reconnection)
// are made once, as before.
func TestJoinDialRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ft := &flakyTransport{up: start.Add(20 * time.Second), dials: map[string][]time.Time{}}
		var log bytes.Buffer
		d := &joinDialer{Transport: ft, addr: "ctl:1", window: time.Minute, log: &log}
		c, err := d.Dial(t.Context(), "ctl:1")
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		c.Close()
		got := ft.dials["ctl:1"]
		var gaps []time.Duration
		for i := 1; i < len(got); i++ {
			gaps = append(gaps, got[i].Sub(got[i-1]))
		}
		want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000}
		if len(gaps) != len(want) {
			t.Fatalf("gaps between attempts %v, want %v ms", gaps, want)
		}
		for i := range want {
			if gaps[i] != want[i]*time.Millisecond {
				t.Fatalf("gaps between attempts %v, want %v ms", gaps, want)
			}
		}
		if s := log.String(); !strings.Contains(s, "does not answer yet") || !strings.Contains(s, "after 10 attempts") {
			t.Errorf("log %q does not say it waited and then joined", s)
		}
		ft.up = time.Now().Add(time.Hour)
		if _, err := d.Dial(t.Context(), "ctl:1"); !errors.Is(err, errRefused) || len(ft.dials["ctl:1"]) != len(got)+1 {
			t.Errorf("second dial of the controller: %v after %d attempts; want one refused attempt", err, len(ft.dials["ctl:1"])-len(got))
		}
		if _, err := d.Dial(t.Context(), "time:2"); !errors.Is(err, errRefused) || len(ft.dials["time:2"]) != 1 {
			t.Errorf("dial of another address: %v after %d attempts; want one refused attempt", err, len(ft.dials["time:2"]))
		}
	})
}

// TestJoinDialGivesUp checks that the retries end at the window, with an
// error that names the address, the window and the last failure, and at
// once when the tester is interrupted.
func TestJoinDialGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft := &flakyTransport{up: time.Now().Add(time.Hour), dials: map[string][]time.Time{}}
		d := &joinDialer{Transport: ft, addr: "ctl:1", window: 30 * time.Second, log: &bytes.Buffer{}}
		start := time.Now()
		_, err := d.Dial(t.Context(), "ctl:1")
		if took := time.Since(start); took != 30*time.Second {
			t.Errorf("gave up after %v, want 30s", took)
		}
		if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), "ctl:1") || !strings.Contains(err.Error(), "--join-retry 30s") {
			t.Errorf("error %v does not name the address, the window and the cause", err)
		}

		ctx, cancel := context.WithCancel(t.Context())
		d = &joinDialer{Transport: ft, addr: "ctl:1", window: time.Hour, log: &bytes.Buffer{}}
		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		if _, err := d.Dial(ctx, "ctl:1"); !errors.Is(err, context.Canceled) || time.Since(start) != time.Second {
			t.Errorf("interrupted dial: %v after %v, want context.Canceled after 1s", err, time.Since(start))
		}

		d = &joinDialer{Transport: ft, addr: "ctl:1", window: 0, log: &bytes.Buffer{}}
		n := len(ft.dials["ctl:1"])
		if _, err := d.Dial(t.Context(), "ctl:1"); !errors.Is(err, errRefused) || len(ft.dials["ctl:1"]) != n+1 {
			t.Errorf("--join-retry 0: %v after %d attempts, want one", err, len(ft.dials["ctl:1"])-n)
		}
	})
}
