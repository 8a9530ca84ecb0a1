package sensord

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
)

// TestOwnSlotHeldSaidHonestly: when this sensor's own bandwidth test
// cannot start because its server is the far end of a peer's test, the
// error says so (this sensor is busy, serving whom), not that the peer is
// busy; the loop still retries it as busy.
func TestOwnSlotHeldSaidHonestly(t *testing.T) {
	token := []byte("a-mesh-token-of-enough-bytes-0123")
	slot := &netprobe.Slot{}
	srv, err := netprobe.NewServer(token, slot)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { _ = srv.Serve(ln) }()
	c := &netprobe.Client{Token: token}
	served := make(chan error, 1)
	go func() { _, err := c.Bandwidth(context.Background(), ln.Addr().String(), time.Second); served <- err }()
	for !slot.Held() {
		time.Sleep(time.Millisecond)
	}
	p := &probeAdapter{c: c, slot: slot}
	_, err = p.Run(context.Background(), sensor.Test{Peer: sensor.Peer{Name: "s2", Addr: "127.0.0.1:1"}, Kind: sensor.Bandwidth}, time.Second)
	if !errors.Is(err, sensor.ErrBusy) || !strings.Contains(fmtErr(err), "this sensor is busy") ||
		!strings.Contains(fmtErr(err), "served to 127.0.0.1:") || strings.Contains(fmtErr(err), "peer is busy") {
		t.Errorf("own test while serving a peer's: %v; want busy, saying this sensor serves a peer's test", err)
	}
	if err := <-served; err != nil {
		t.Errorf("the peer's test: %v", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
