package timeserver

import (
	"net"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
)

func newTestClock(offset time.Duration) *clock.Local { return clock.NewLocal(int64(offset), 0) }

func TestProbe(t *testing.T) {
	t.Parallel()
	_, udpAddr := startUDP(t, Config{})
	_, tcpAddr := startTCP(t, Config{})
	tests := []struct {
		name, network, addr string
		offset              time.Duration
	}{
		{"udp, right clock", "udp", udpAddr, 0},                 // the offset is about 0
		{"udp, clock an hour fast", "udp", udpAddr, time.Hour},  // T1, T4 shifted; θ ≈ −1h
		{"tcp, clock an hour fast", "tcp", tcpAddr, time.Hour},  // the same over TCP
		{"tcp, clock an hour slow", "tcp", tcpAddr, -time.Hour}, // and the other way
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Dial(tt.network, tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			p, err := c.Probe(newTestClock(tt.offset), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if p.T1 > p.T4 || p.T2 > p.T3 {
				t.Errorf("probe %+v: want T1 <= T4 and T2 <= T3", p)
			}
			// One probe's error is at most half its round trip (the bound a
			// sync reports); on a loaded machine that can exceed a millisecond.
			bound := time.Duration(p.RTT())/2 + 50*time.Microsecond
			if d := time.Duration(p.Offset()) + tt.offset; d.Abs() > bound {
				t.Errorf("offset %v, want %v within %v (RTT/2)", time.Duration(p.Offset()), -tt.offset, bound)
			}
		})
	}
}

func TestBurstOverOneTCPConnection(t *testing.T) {
	t.Parallel()
	s, addr := startTCP(t, Config{})
	c, err := Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first := c.tcp
	ps, err := c.Burst(newTestClock(0), 3, time.Second)
	if err != nil || len(ps) != 3 || c.tcp != first {
		t.Fatalf("Burst: %d probes, err %v, same connection %v", len(ps), err, c.tcp == first)
	}
	// The server counts an answer once written: the client may be faster.
	if st := waitStats(t, s, 3); st.Answered != 3 {
		t.Errorf("stats %+v, want Answered 3", st)
	}
}

func TestBurstFailsOnlyWhenNothingAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // a socket that never answers
	c, err := Dial("udp", ln.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ps, err := c.Burst(newTestClock(0), 2, 20*time.Millisecond); err == nil {
		t.Fatalf("Burst = %d probes, nil error; want an error", len(ps))
	}
}

// TestProbeSkipsLateAnswer plays a server that first answers an earlier
// probe, then this one: the probe must take the second answer.
func TestProbeSkipsLateAnswer(t *testing.T) {
	t.Parallel()
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go func() {
		buf := make([]byte, 128)
		n, from, err := srv.ReadFromUDP(buf)
		if err != nil {
			return
		}
		r, _ := parseRequest(buf[:n])
		t1 := r.t1
		srv.WriteToUDP(response(t1-1, 100, 100, nil), from) // the late one
		srv.WriteToUDP(response(t1, 200, 200, nil), from)
	}()
	c, err := Dial("udp", srv.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.Probe(newTestClock(0), time.Second)
	if err != nil || p.T2 != 200 {
		t.Fatalf("Probe = %+v, %v; want the answer with T2 200", p, err)
	}
}

func TestDialRejectsOtherNetworks(t *testing.T) {
	t.Parallel()
	if _, err := Dial("ip", "127.0.0.1:1"); err == nil {
		t.Fatal("Dial(\"ip\") succeeded")
	}
}
