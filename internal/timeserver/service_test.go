package timeserver

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
)

// TestServiceServesUDPAndTCP starts both sockets, probes each and stops.
func TestServiceServesUDPAndTCP(t *testing.T) {
	t.Parallel()
	listened := 0
	svc, err := Start(Options{UDP: "127.0.0.1:0", TCP: "127.0.0.1:0", ListenTCP: func(addr string) (net.Listener, error) {
		listened++
		return net.Listen("tcp", addr)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if listened != 1 {
		t.Errorf("ListenTCP called %d times, want 1", listened)
	}
	clk := clock.NewLocal(0, 0)
	for _, nw := range []struct{ network, addr string }{{"udp", svc.UDPAddr()}, {"tcp", svc.TCPAddr()}} {
		c, err := Dial(nw.network, nw.addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Probe(clk, 5*time.Second); err != nil {
			t.Errorf("%s probe of %s: %v", nw.network, nw.addr, err)
		}
		c.Close()
	}
	if st := waitStats(t, svc.srv, 2); st.Answered != 2 || svc.Stats() != st {
		t.Errorf("stats %+v, want 2 answered", st)
	}
	udp := svc.UDPAddr()
	if err := svc.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if err := svc.Stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}
	c, err := ListenUDP(udp) // the socket was closed
	if err != nil {
		t.Fatalf("UDP address still taken after Stop: %v", err)
	}
	c.Close()
}

// TestServiceOneSocket serves TCP alone: no UDP address.
func TestServiceOneSocket(t *testing.T) {
	t.Parallel()
	svc, err := Start(Options{TCP: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	if svc.UDPAddr() != "" || svc.TCPAddr() == "" {
		t.Errorf("udp %q tcp %q, want TCP only", svc.UDPAddr(), svc.TCPAddr())
	}
	if svc.Addr() != svc.TCPAddr() {
		t.Errorf("Addr %q, want the TCP address %q", svc.Addr(), svc.TCPAddr())
	}
}

// TestServiceStartFails checks that a failed start says why and leaves no
// socket open.
func TestServiceStartFails(t *testing.T) {
	t.Parallel()
	if _, err := Start(Options{}); err == nil {
		t.Error("start with no address accepted")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	probe, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	udp := probe.LocalAddr().String()
	probe.Close()
	if _, err := Start(Options{UDP: udp, TCP: taken.Addr().String()}); err == nil {
		t.Fatal("start on a taken TCP address accepted")
	}
	c, err := ListenUDP(udp)
	if err != nil {
		t.Fatalf("a failed start left its UDP socket open: %v", err)
	}
	c.Close()
}

// brokenListener fails every Accept as a closed listener does.
type brokenListener struct{ net.Listener }

func (brokenListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }

// TestServiceReportsAFailedLoop checks that a server loop's error closes
// Failed and comes back from Stop.
func TestServiceReportsAFailedLoop(t *testing.T) {
	t.Parallel()
	svc, err := Start(Options{TCP: "127.0.0.1:0", ListenTCP: func(addr string) (net.Listener, error) {
		ln, err := net.Listen("tcp", addr)
		return brokenListener{ln}, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-svc.Failed()
	if err := svc.Stop(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("stop: %v, want the loop's error", err)
	}
}
