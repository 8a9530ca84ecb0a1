package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/controller"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/test/netlab"
)

// diperf's own sample path at scale, through SSH: testers (the real
// binary, deployed by the ssh testbed) on netlab hosts run the built-in
// null client, whose calls return OK at once, so that what is measured is
// the tester's loops and batches, the SSH stdio transport, and the
// controller's ingestion and analysis, not a service. The controller runs
// in this process, since the null client is reachable only through
// controller.Options.Client.

// bnExperiment is the benchmark's experiment; its exec client is replaced
// by the null client.
const bnExperiment = `name: bn-ssh-bench
client:
  exec: ["true"]
  timeout: 10s
testbed:
  provider: ssh
  hosts: [%s]
  identity_file: %s
  known_hosts: %s
  testers_per_host: %d
  connect_timeout: 20s
schedule:
  testers: %d
  synchronized_start: true
  tester_start_interval: 0s
  tester_duration: %s
  clients_per_tester: %d
  client_interval: %s
`

// bnSpec is one benchmark run: hosts × perHost testers × clients loops,
// each making one call every interval for duration.
type bnSpec struct {
	hosts, perHost, clients int
	interval, duration      time.Duration
}

func (s bnSpec) planned() float64 {
	return float64(s.hosts*s.perHost*s.clients) / s.interval.Seconds()
}

// bnResult is what a run came to.
type bnResult struct {
	received, produced uint64
	lost               int64   // produced − received, over every tester
	loopS              float64 // from the first client loop's start to the last one's end
	rate               float64 // received / loopS
	median             float64 // the summary's median throughput over its quanta: the steady rate
	ctlCPU             float64 // CPU seconds of this process (the controller) during the run
	wall               time.Duration
	retrieved          []string // retrieved events with samples: they did not come over the live stream
	failed             int
	ok                 int // OK samples in the summary
	sumLost            int // lost samples in the summary
}

// bnRun builds a lab and runs s on it with the null client.
func bnRun(tb testing.TB, s bnSpec) bnResult {
	tb.Helper()
	lab := netlab.New(tb, netlab.Options{Hosts: s.hosts, Prefix: "bn"})
	body := fmt.Sprintf(bnExperiment, strings.Join(sshNames(lab.Hosts), ", "), lab.KeyFile, lab.KnownHosts,
		s.perHost, s.hosts*s.perHost, s.duration, s.clients, s.interval)
	exp, err := experiment.Parse([]byte(body), "bn.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	ssh := testbed.NewSSH(exp.Testbed)
	ssh.Binary = bin
	out := filepath.Join(tb.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), s.duration+3*time.Minute)
	defer cancel()
	cpu0, start := bnCPU(tb), time.Now()
	oc, err := controller.Run(ctx, controller.Options{Experiment: exp, Dir: out, Testbed: ssh,
		Client: &protocol.ClientDesc{Kind: protocol.ClientNull}})
	r := bnResult{wall: time.Since(start), ctlCPU: bnCPU(tb) - cpu0}
	if err != nil {
		tb.Fatalf("run: %v", err)
	}
	if ctx.Err() != nil {
		tb.Fatalf("the run did not end within %v", s.duration+3*time.Minute)
	}
	recs, err := rundir.ReadTesters(out)
	if err != nil {
		tb.Fatal(err)
	}
	var first, last int64
	for _, t := range recs {
		r.received += t.Received
		r.produced += t.Sent
		r.lost += int64(t.Sent) - int64(t.Received)
		if t.Failed {
			r.failed++
			tb.Logf("tester %d (%s) failed: %s", t.Slot, t.Host, t.FailureReason)
		}
		if first == 0 || t.StartNs < first {
			first = t.StartNs
		}
		last = max(last, t.StopNs)
	}
	if len(recs) != s.hosts*s.perHost || oc.Started != len(recs) {
		tb.Errorf("%d testers recorded, %d started; want %d", len(recs), oc.Started, s.hosts*s.perHost)
	}
	r.loopS = float64(last-first) / 1e9
	if r.loopS > 0 {
		r.rate = float64(r.received) / r.loopS
	}
	r.retrieved = bnRetrieved(tb, out)
	sum, err := pipeline.ReadSummary(out)
	if err != nil {
		tb.Fatal(err)
	}
	r.ok, r.sumLost, r.median = sum.Samples.OK, sum.Samples.Lost, sum.Throughput.Median
	tb.Logf("%d hosts × %d testers × %d clients every %v for %v: %d received of %d produced, %.0f samples/s over %.1f s of client loops (median %.0f/s over the quanta; %.0f planned), controller %.1f CPU-s, run %v",
		s.hosts, s.perHost, s.clients, s.interval, s.duration, r.received, r.produced, r.rate, r.loopS, r.median, s.planned(), r.ctlCPU, r.wall.Round(time.Millisecond))
	return r
}

// bnCheck fails tb unless every sample produced arrived over the live SSH
// streams (none lost, none fetched from a tester's spool at cleanup), every
// tester ran to its end and every sample is OK.
func bnCheck(tb testing.TB, r bnResult) {
	tb.Helper()
	if r.lost != 0 || r.sumLost != 0 || r.received == 0 {
		tb.Errorf("%d samples lost (%d produced, %d received; the summary says %d lost)", r.lost, r.produced, r.received, r.sumLost)
	}
	if len(r.retrieved) > 0 {
		tb.Errorf("samples came from the testers' spools at cleanup, not over the live stream:\n%s", strings.Join(r.retrieved, "\n"))
	}
	if r.failed > 0 {
		tb.Errorf("%d testers failed", r.failed)
	}
	if uint64(r.ok) != r.received {
		tb.Errorf("summary: %d OK samples of %d received, want all OK (the null client)", r.ok, r.received)
	}
}

// bnRetrieved returns the details of the run's retrieved events that
// brought samples back.
func bnRetrieved(tb testing.TB, dir string) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, rundir.Events))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct{ Event, Detail string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			tb.Fatalf("events.jsonl: %v", err)
		}
		if (e.Event == "retrieved" && !strings.HasPrefix(e.Detail, "0 samples")) || e.Event == "retrieve-error" {
			out = append(out, e.Event+": "+e.Detail)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// bnCPU returns the CPU time this process used so far, user and system, in
// seconds.
func bnCPU(tb testing.TB) float64 {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// TestSSHBenchSmall is the benchmark's path at CI size: 2 hosts, 1,000
// null clients at 10 calls/s each for 4 s; every sample arrives over the
// live SSH streams and none is lost. The rate must reach a quarter of the
// planned 10,000/s (a free client on a busy 2-core machine).
func TestSSHBenchSmall(t *testing.T) {
	s := bnSpec{hosts: 2, perHost: 1, clients: 500, interval: 100 * time.Millisecond, duration: 4 * time.Second}
	r := bnRun(t, s)
	bnCheck(t, r)
	if r.rate < s.planned()/4 {
		t.Errorf("%.0f samples/s, want at least a quarter of the planned %.0f", r.rate, s.planned())
	}
}

// BenchmarkSSHTenThousandClients is issue 9's figure: 10 hosts, one
// tester each, 10,000 null clients for 20 s, the samples through SSH to
// the controller; it reports samples/s, lost, samples, the controller's
// CPU seconds and the run's wall time, and fails if any sample is lost or
// fetched from a spool rather than the live stream. Two loads: every
// client at 10 calls/s (the 100,000/s, which the rate can only
// approach: it counts the loops' ramp and tail) and at 50 calls/s (a
// planned 500,000/s: what this machine's path carries at most).
//
//	go test -run '^$' -bench BenchmarkSSH -benchtime 1x ./e2e/
func BenchmarkSSHTenThousandClients(b *testing.B) {
	for _, perS := range []int{10, 50} {
		b.Run(fmt.Sprintf("calls-per-client=%d/s", perS), func(b *testing.B) {
			s := bnSpec{hosts: 10, perHost: 1, clients: 1000, interval: time.Second / time.Duration(perS), duration: 20 * time.Second}
			for range b.N {
				r := bnRun(b, s)
				bnCheck(b, r)
				if b.Failed() {
					b.FailNow()
				}
				b.ReportMetric(r.rate, "samples/s")
				b.ReportMetric(r.median, "median-samples/s")
				b.ReportMetric(float64(r.lost), "lost")
				b.ReportMetric(float64(r.received), "samples")
				b.ReportMetric(r.ctlCPU, "controller-cpu-s")
				b.ReportMetric(r.wall.Seconds(), "run-s")
			}
		})
	}
}
