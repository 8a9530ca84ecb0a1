package netprobe

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sensor"
)

// startBudgeted serves on a loopback port with the serving budget b.
func startBudgeted(t *testing.T, b sensor.Budget) (*Server, *sensor.Served, *Slot, string) {
	t.Helper()
	slot := &Slot{}
	srv, addr := startServer(t, slot)
	served := sensor.NewServed(b, time.Now().Add(-sensor.ServeWindow)) // a sensor up for a while
	srv.Budget = served
	return srv, served, slot, addr
}

// TestServedWithinShare: a member that runs bandwidth tests back to back
// toward a sensor gets its share of the sensor's serving budget (half of
// Fraction × ServeWindow, the last test passing it), then "refused" (ErrRefused, counted): it holds
// the slot no longer, and what was served is charged to the sensor's
// ledger (issue 21: a member made a sensor echo 3 GB in 20 s while it
// reported 26% of its time testing).
func TestServedWithinShare(t *testing.T) {
	share := time.Second // half of a 2 s serving budget an hour
	srv, served, slot, addr := startBudgeted(t, sensor.Budget{Fraction: float64(2*share) / float64(sensor.ServeWindow)})
	start := time.Now()
	ledger := sensor.NewLedger(start)
	ledger.CountServed(served)
	c := &Client{Token: testToken}
	ok, refused := 0, 0
	for range 6 {
		waitFor(t, func() bool { return !slot.Held() }) // the last test's handler is done
		_, err := c.Bandwidth(context.Background(), addr, 300*time.Millisecond)
		switch {
		case err == nil && refused == 0:
			ok++
		case errors.Is(err, ErrRefused):
			refused++
		default:
			t.Fatalf("test %d: %v (after %d served, %d refused)", ok+refused+1, err, ok, refused)
		}
	}
	if ok < 3 || ok > 4 || refused != 6-ok {
		t.Errorf("%d tests of 300ms served, %d refused; want the share of %v, passed by the last one (3 or 4), the rest refused", ok, refused, share)
	}
	waitStats(t, srv, func(st Stats) bool { return st.BandwidthServed == uint64(ok) && st.OverBudget == uint64(refused) })
	took, _ := served.Totals()
	if took < time.Duration(ok)*300*time.Millisecond || took > share+300*time.Millisecond+grace {
		t.Errorf("served %v in %d tests of 300ms; want at least their test time, at most the share %v, one test more, and grace", took, ok, share)
	}
	if f, _ := ledger.Spent(time.Now()); f < float64(took)/float64(time.Since(start)) {
		t.Errorf("the ledger says %.2f of the time testing; it served %v of %v", f, took, time.Since(start))
	}
	if slot.Held() {
		t.Error("the slot is held after the member's tests were refused")
	}
}

// TestServedByteCap: with a byte cap, a bandwidth test served is cut once
// it passes the peer's share of the bytes (counted), and the next one is
// refused: the sensor never receives much more than its budget.
func TestServedByteCap(t *testing.T) {
	const bytesPerHour = 2e6 // a peer's share: 1e6 bytes
	srv, served, _, addr := startBudgeted(t, sensor.Budget{Fraction: 0.5, BytesPerHour: bytesPerHour})
	c := &Client{Token: testToken}
	if _, err := c.Bandwidth(context.Background(), addr, 500*time.Millisecond); err == nil {
		t.Fatal("a test sending gigabytes on loopback was reported in full under a 1 MB share")
	}
	waitStats(t, srv, func(st Stats) bool { return st.Cut == 1 })
	if _, err := c.Bandwidth(context.Background(), addr, 500*time.Millisecond); !errors.Is(err, ErrRefused) {
		t.Errorf("a test once the share of bytes is spent: err = %v, want ErrRefused", err)
	}
	if _, bytes := served.Totals(); bytes < 1e6 || bytes > 1e6+1 {
		t.Errorf("served %.0f bytes; want the peer's share, 1e6 bytes (+1: the byte that showed it passed)", bytes)
	}
}

// TestPipelinedLatencyCut: a member that sends latency requests ahead of
// the answers (turning a latency test into a stream both ways) is cut at
// once and counted; the server echoes next to nothing of it.
func TestPipelinedLatencyCut(t *testing.T) {
	srv, addr := startServer(t, nil)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const size, ahead = 1000, 200
	nonce := make([]byte, NonceSize)
	if _, err := io.ReadFull(conn, nonce); err != nil {
		t.Fatal(err)
	}
	raw, err := EncodeRequest(testToken, nonce, Request{Kind: KindLatency, TestTime: time.Second, Size: size, Nonce: newNonce()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(raw); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(conn, make([]byte, replySize)); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = conn.Write(make([]byte, size*ahead)) }()
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	echoed, _ := io.Copy(io.Discard, conn)
	if echoed > 2*size {
		t.Errorf("%d bytes echoed of %d requests sent ahead; want the test cut at the first one sent ahead", echoed, ahead)
	}
	waitStats(t, srv, func(st Stats) bool { return st.Cut == 1 })
}
