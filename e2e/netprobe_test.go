package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/test/netlab"
)

// probeRates are the tbf caps of the comparison with iperf3.
var probeRates = []int64{10_000_000, 25_000_000, 50_000_000}

// TestNetprobeVsIperf3 (issue 12, "Must show"): on a link capped by tc tbf
// at 10, 25 and 50 Mbit/s, a 5 s netprobe bandwidth test measures, over the
// whole test, within 5% of iperf3's receiver throughput on the same link
// and direction (one round of each, the caps at once on their own links;
// BenchmarkNetprobeVsIperf3 takes the median of 3). About 12 s.
func TestNetprobeVsIperf3(t *testing.T) {
	for _, row := range compareIperf3(t, 1) {
		t.Log(row)
		if !row.within(0.05) {
			t.Errorf("%d Mbit/s: netprobe %.2f Mbit/s vs iperf3 %.2f Mbit/s: more than 5%% apart", row.rate/1e6, row.ours/1e6, row.iperf/1e6)
		}
	}
}

// BenchmarkNetprobeVsIperf3 prints the figures of docs/sensors.md: for each
// cap, the median of 3 rounds of netprobe (whole test and after slow start)
// and iperf3 (receiver), 5 s tests alternating. Run with -benchtime 1x.
func BenchmarkNetprobeVsIperf3(b *testing.B) {
	for range b.N {
		for _, row := range compareIperf3(b, 3) {
			b.Log(row)
		}
	}
}

// probeRow is one cap's medians.
type probeRow struct {
	rate                int64
	ours, steady, iperf float64 // bits/s
	steadyFrom          time.Duration
}

func (r probeRow) within(rel float64) bool {
	return r.ours >= r.iperf*(1-rel) && r.ours <= r.iperf*(1+rel)
}

func (r probeRow) String() string {
	return fmt.Sprintf("cap %2d Mbit/s: netprobe whole %6.2f Mbit/s (%+.1f%% vs iperf3), after slow start %6.2f Mbit/s (from %v), iperf3 %6.2f Mbit/s",
		r.rate/1e6, r.ours/1e6, 100*(r.ours/r.iperf-1), r.steady/1e6, r.steadyFrom, r.iperf/1e6)
}

// compareIperf3 builds a lab of one host per cap, serves netprobe and
// iperf3 in each host, and measures each cap from the root namespace to
// its host (the capped direction: the host's veth, then its eth0), rounds
// times each. The caps are measured at once, each on its own link: a tbf
// cap is the kernel's, per link, and the three links together carry 85
// Mbit/s, which the machine forwards without effort; on its own link each
// round's netprobe and iperf3 tests alternate, never overlapping.
func compareIperf3(tb testing.TB, rounds int) []probeRow {
	if _, err := exec.LookPath("iperf3"); err != nil {
		tb.Skip("iperf3 is not installed (scripts/test.sh installs it)")
	}
	lab := netlab.New(tb, netlab.Options{Hosts: len(probeRates), Prefix: "probe"})
	token := []byte("the-mesh-token-of-the-netlab-test")
	addrs := make([]string, len(probeRates))
	for i, h := range lab.Hosts {
		addrs[i] = startProbeServer(tb, h, token)
		startIperf3Server(tb, h)
		if err := h.SetRate(probeRates[i]); err != nil {
			tb.Fatal(err)
		}
	}
	rows := make([]probeRow, len(probeRates))
	errs := make([]error, len(probeRates))
	var wg sync.WaitGroup
	for i, h := range lab.Hosts {
		wg.Go(func() { rows[i], errs[i] = measureCap(tb, h, addrs[i], token, probeRates[i], rounds) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tb.Fatal(err)
	}
	return rows
}

// measureCap measures the cap rate on h's link, rounds times: a 5 s
// netprobe test to addr, then a 5 s iperf3 test; it returns their medians.
func measureCap(tb testing.TB, h *netlab.Host, addr string, token []byte, rate int64, rounds int) (probeRow, error) {
	client := &netprobe.Client{Token: token}
	var ours, steady, iperf, from []float64
	for range rounds {
		r, err := client.Bandwidth(context.Background(), addr, 5*time.Second)
		if err != nil {
			return probeRow{}, fmt.Errorf("netprobe at %d bit/s: %w", rate, err)
		}
		ours, steady, from = append(ours, r.BitsPerSec), append(steady, r.SteadyBitsPerSec), append(from, float64(r.SteadyFrom))
		ip, err := runIperf3(h.Addr)
		if err != nil {
			return probeRow{}, fmt.Errorf("iperf3 at %d bit/s: %w", rate, err)
		}
		iperf = append(iperf, ip)
		tb.Logf("cap %d Mbit/s round: netprobe %.3f Mbit/s (steady %.3f from %v), iperf3 %.3f Mbit/s",
			rate/1e6, r.BitsPerSec/1e6, r.SteadyBitsPerSec/1e6, r.SteadyFrom, ip/1e6)
	}
	return probeRow{rate: rate, ours: median(ours), steady: median(steady), iperf: median(iperf),
		steadyFrom: time.Duration(median(from))}, nil
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[(len(s)-1)/2]
}

// startProbeServer serves netprobe inside h's network namespace: the
// listening socket is made by a thread that entered the namespace, so
// every connection it accepts is h's. The thread then goes back to the
// namespace it came from: a locked goroutine that ends on the process's
// main thread leaves that thread in place (the runtime cannot end it),
// and a main thread left in h's namespace makes the lab's teardown,
// which kills every process in it, kill the test.
func startProbeServer(tb testing.TB, h *netlab.Host, token []byte) string {
	type result struct {
		ln  net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // unlocked only once back in its own namespace
		ln, err := listenIn(h)
		ch <- result{ln, err}
	}()
	r := <-ch
	if r.err != nil {
		tb.Fatalf("listening in %s: %v", h.Name, r.err)
	}
	srv, err := netprobe.NewServer(token, nil)
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(r.ln) }()
	tb.Cleanup(func() {
		r.ln.Close()
		if err := <-done; err != nil {
			tb.Errorf("netprobe server: %v", err)
		}
	})
	return r.ln.Addr().String()
}

// listenIn listens on h's address inside h's network namespace and puts
// the calling thread (locked to its goroutine) back into its own
// namespace; it unlocks the thread only then.
func listenIn(h *netlab.Host) (net.Listener, error) {
	own, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(own)
	fd, err := unix.Open(h.NS(), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", h.Addr+":0")
	if unix.Setns(own, unix.CLONE_NEWNET) == nil {
		runtime.UnlockOSThread()
	}
	return ln, err
}

// startIperf3Server runs iperf3 -s in h until the test ends.
func startIperf3Server(tb testing.TB, h *netlab.Host) {
	cmd := exec.Command("ip", "netns", "exec", h.Name, "iperf3", "-s", "-B", h.Addr, "-p", "5201")
	if err := cmd.Start(); err != nil {
		tb.Fatalf("iperf3 -s: %v", err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("ip", "netns", "exec", h.Name, "ss", "-Hltn", "sport = :5201").Output()
		if strings.Contains(string(out), "5201") {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatal("iperf3 -s is not listening after 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runIperf3 runs a 5 s iperf3 test from here to addr and returns the
// receiver's throughput (end.sum_received) in bits/s.
func runIperf3(addr string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "iperf3", "-c", addr, "-p", "5201", "-t", "5", "-J").Output()
	if err != nil {
		return 0, fmt.Errorf("iperf3 -c %s: %w: %s", addr, err, out)
	}
	var rep struct {
		End struct {
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.End.SumReceived.BitsPerSecond <= 0 {
		return 0, fmt.Errorf("iperf3 -J: no end.sum_received.bits_per_second (%v)", err)
	}
	return rep.End.SumReceived.BitsPerSecond, nil
}
