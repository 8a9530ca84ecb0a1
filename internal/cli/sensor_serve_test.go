package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
)

// TestSensorTestTimeOverProtocol: a --test-time longer than a sensor's
// server accepts (netprobe.MaxTestTime) is refused at start, exit 2,
// before the sensor listens or registers (issue 21: it started and every
// test failed).
func TestSensorTestTimeOverProtocol(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "mesh.token")
	if err := os.WriteFile(tok, []byte("a-mesh-token-of-enough-bytes-0123"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var out bytes.Buffer
	start := time.Now()
	err := sensorDaemon(ctx, &env{stdout: &out, stderr: &out}, []string{"--directory", "http://127.0.0.1:1", "--token-file", tok,
		"--listen", "127.0.0.1:0", "--period", "10m", "--test-time", "90s"})
	if errs.Code(err) != errs.CodeUsage || !strings.Contains(fmtErr(err), "--test-time must be at most 1m0s") {
		t.Errorf("--test-time 90s: exit %d, %v; want exit 2 naming the most a sensor serves, 1m0s", errs.Code(err), err)
	}
	if d := time.Since(start); d > time.Second || out.Len() > 0 {
		t.Errorf("refused after %v, having said %q: want at once, before anything starts", d, out.String())
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

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
