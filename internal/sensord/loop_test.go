package sensord

import (
	"context"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
)

var loopToken = []byte("the-mesh-token-of-the-loop-tests")

// memDir is a directory in memory: fixed peers, results kept.
type memDir struct {
	mu      sync.Mutex
	peers   []sensor.Peer
	results []sensor.Result
}

func (d *memDir) Sensors(context.Context) ([]sensor.Peer, error) { return d.peers, nil }

func (d *memDir) Write(_ context.Context, r sensor.Result) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.results = append(d.results, r)
	return nil
}

// probeServer is a sensor's test server on loopback; received counts what
// its connections read, at their sockets.
func probeServer(t *testing.T, received *atomic.Uint64) string {
	t.Helper()
	srv, err := netprobe.NewServer(loopToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = srv.Serve(countingListener{ln, received}); close(done) }()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

type countingListener struct {
	net.Listener
	received *atomic.Uint64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countingConn{c, l.received}, err
}

type countingConn struct {
	net.Conn
	received *atomic.Uint64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.received.Add(uint64(n))
	return n, err
}

// runSensor runs the loop of sensor "a" for d against peers with the
// netprobe client and returns what it did and said.
func runSensor(t *testing.T, d time.Duration, cfg sensor.Config, peers ...sensor.Peer) (sensor.Stats, *memDir, string) {
	t.Helper()
	cfg.Self = sensor.Peer{Name: "a", Groups: []string{"local"}, Version: "1"}
	var mu sync.Mutex
	var log strings.Builder
	cfg.Log = func(s string) { mu.Lock(); log.WriteString(s + "\n"); mu.Unlock() }
	dir := &memDir{peers: append([]sensor.Peer{cfg.Self}, peers...)}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	st := sensor.Run(ctx, cfg, dir, &probeAdapter{c: &netprobe.Client{Token: loopToken}, slot: &netprobe.Slot{}})
	mu.Lock()
	defer mu.Unlock()
	return st, dir, log.String()
}

func peer(name, addr string) sensor.Peer {
	return sensor.Peer{Name: name, Addr: addr, Groups: []string{"local"}, Version: "1"}
}

// With --bytes-per-hour 1000000, the sensor's tests move at most 1 MB in
// the hour, counted at its sockets and at the peer's: the first bandwidth
// test on loopback (which takes gigabytes a second) stops at it, says so,
// and its result covers only the time its data flowed.
func TestSensorByteBudgetIsACap(t *testing.T) {
	const budget = 1e6
	var received atomic.Uint64
	b := peer("b", probeServer(t, &received))
	cfg := sensor.Config{Period: 200 * time.Millisecond, TestTime: 500 * time.Millisecond,
		Budget: sensor.Budget{BytesPerHour: budget}, Rand: rand.New(rand.NewPCG(2, 2))} // the bandwidth test first
	_, dir, log := runSensor(t, 2*time.Second, cfg, b)
	if got := received.Load(); got > budget {
		t.Errorf("the peer received %d bytes from a sensor with a budget of %.0f an hour", got, budget)
	}
	if !strings.Contains(log, "stopped at the byte budget") {
		t.Errorf("the log does not say a test stopped at the byte budget:\n%s", log)
	}
	for _, r := range dir.results {
		if r.Kind == sensor.Bandwidth && (r.DataTime >= cfg.TestTime || r.BandwidthBps <= 0) {
			t.Errorf("a capped bandwidth test measured %.0f bit/s over %v, want over the time its data flowed", r.BandwidthBps, r.DataTime)
		}
	}
	t.Logf("the peer received %d bytes; results %d; log:\n%s", received.Load(), len(dir.results), log)
}

// silentPeer accepts connections and never answers.
func silentPeer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().String()
}

// A peer that accepts and never answers costs a test about a second (its
// answer time), is held back, and is not charged as testing: the live
// peer is tested on, and the time spent testing stays within the budget.
func TestSensorDeadPeerCostsSeconds(t *testing.T) {
	var received atomic.Uint64
	live := peer("live", probeServer(t, &received))
	dead := peer("dead", silentPeer(t))
	cfg := sensor.Config{Period: 300 * time.Millisecond, TestTime: 200 * time.Millisecond,
		Budget: sensor.Budget{Fraction: 0.5}, Rand: rand.New(rand.NewPCG(1, 1))} // a test to the dead peer first
	st, dir, log := runSensor(t, 4*time.Second, cfg, dead, live)
	if !strings.Contains(log, "dead: ") || !strings.Contains(log, "held back") {
		t.Errorf("the log does not say the dead peer failed and is held back:\n%s", log)
	}
	// 4 s: at most 2 s lost to the dead peer (1 s a try; the second
	// after its hold), so 2 s less the random delays to test the live
	// one, a test every 400 ms to 475 ms (a period and a delay, or the
	// 0.5 budget of 200 ms tests): 3 at least on a busy machine
	if len(dir.results) < 3 || st.Fraction > cfg.Budget.Fraction {
		t.Errorf("%d tests of the live peer in 4 s, %.2f of the time charged as testing (budget %.2f); log:\n%s",
			len(dir.results), st.Fraction, cfg.Budget.Fraction, log)
	}
	t.Logf("%d results, stats %+v; log:\n%s", len(dir.results), st, log)
}
