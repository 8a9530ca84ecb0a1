package e2e

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// failClientExp is an experiment of testers whose client appends the
// time of each call (Unix s) to calls, so that the test sees when load
// was put on the "target", whatever the run says.
func failClientExp(t *testing.T, calls string, testers int, duration string, extra string) string {
	t.Helper()
	return writeExperiment(t, `name: fail
client:
  exec: [sh, -c, "date +%s.%N >> `+calls+`"]
  timeout: 2s
schedule:
  testers: `+itoa(testers)+`
  tester_start_interval: 200ms
  tester_duration: `+duration+`
  client_interval: 50ms
`+extra)
}

// failCallsAfter counts the calls recorded in calls that began after at.
func failCallsAfter(t *testing.T, calls string, at time.Time) (n int, last time.Time) {
	t.Helper()
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatalf("reading the calls the client recorded: %v", err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		v, err := strconv.ParseFloat(line, 64)
		if err != nil {
			continue // a line cut by a kill
		}
		ts := time.Unix(0, int64(v*1e9))
		if ts.After(at) {
			n++
		}
		if ts.After(last) {
			last = ts
		}
	}
	return n, last
}

// failSpoolSeqs returns the sample Seqs of slot in a spool file's bytes.
func failSpoolSeqs(t *testing.T, data []byte, slot int) map[uint64]bool {
	t.Helper()
	seqs := map[uint64]bool{}
	err := rundir.ReadSpoolFrom(bytes.NewReader(data), rundir.SpoolVisitor{
		Batch: func(s int, b *protocol.Batch) error {
			for _, smp := range b.Samples {
				if s == slot {
					seqs[smp.Seq] = true
				}
			}
			return nil
		},
		Sync: func(int, clock.Record) error { return nil },
	})
	if err != nil {
		t.Fatalf("reading a tester's spool: %v", err)
	}
	return seqs
}

// failKillMarked kills every process marked with mark when the test ends.
func failKillMarked(t *testing.T, mark string) {
	t.Cleanup(func() {
		for _, p := range markedProcesses(t, mark) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
}

// TestFailTesterKilled kills a tester with SIGKILL mid-run: it is marked
// failed within 3 s, every sample it had spooled on its own disk is in
// samples.parquet (the controller retrieved what it had not received),
// and no process of the run is left.
func TestFailTesterKilled(t *testing.T) {
	t.Parallel()
	calls := filepath.Join(t.TempDir(), "calls")
	exp := failClientExp(t, calls, 2, "10s", "")
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	failKillMarked(t, mark)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	pid := pidOf(t, waitEvent(t, out, "admitted", 1))
	waitEvent(t, out, "started", 1)
	time.Sleep(2 * time.Second)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	spool, err := os.ReadFile(filepath.Join(out, "logs", "tester-001.spool"))
	if err != nil {
		t.Fatalf("the tester's own spool: %v", err)
	}
	failed := waitEvent(t, out, "failed", 1)
	if at := time.Unix(0, int64(failed["t_ns"].(float64))); at.Sub(killed) > 3*time.Second {
		t.Errorf("tester marked failed %v after its kill, want within 3 s", at.Sub(killed))
	}
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	spooled := failSpoolSeqs(t, spool, 1)
	got := parquetSeqs(t, out)[1]
	missing := 0
	for seq := range spooled {
		if !got[seq] {
			missing++
		}
	}
	if len(spooled) == 0 || missing > 0 {
		t.Errorf("the killed tester spooled %d samples; %d of them are not in samples.parquet", len(spooled), missing)
	}
	row := testerRow(t, out, 1)
	if row.int(t, "samples_received") != len(got) || row.int(t, "samples_sent") < len(spooled) {
		t.Errorf("testers.csv: received %d sent %d; samples.parquet has %d, the spool %d",
			row.int(t, "samples_received"), row.int(t, "samples_sent"), len(got), len(spooled))
	}
	waitEvent(t, out, "retrieved", 1)
	checkRunDir(t, out)
	if left := hardenLeft(t, mark); len(left) > 0 {
		t.Errorf("processes of the run alive 5 s after it ended: %s", describePIDs(left))
	}
}

// failRelay forwards TCP connections to upstream and can stop forwarding
// without closing anything (a partition) and start again (the heal).
type failRelay struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	cond     *sync.Cond
	paused   bool
}

func failStartRelay(t *testing.T, upstream string) *failRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &failRelay{ln: ln, upstream: upstream}
	r.cond = sync.NewCond(&r.mu)
	t.Cleanup(func() { ln.Close(); r.pause(false) })
	relayEach(ln, upstream, func(down, up net.Conn) {
		go r.pipe(down, up)
		r.pipe(up, down)
	})
	return r
}

func (r *failRelay) pause(p bool) {
	r.mu.Lock()
	r.paused = p
	r.mu.Unlock()
	r.cond.Broadcast()
}

func (r *failRelay) gate() {
	r.mu.Lock()
	for r.paused {
		r.cond.Wait()
	}
	r.mu.Unlock()
}

// pipe copies from src to dst, holding every byte while paused: nothing
// is read then, so the peers' buffers fill as in a real partition.
func (r *failRelay) pipe(src, dst net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		r.gate()
		n, err := src.Read(buf)
		r.gate()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil { // io.EOF or a reset: close the other side too
			return
		}
	}
}

// TestFailPartitionHealed cuts the tester off from its controller for
// 20 s (a relay that stops forwarding without closing) and heals it: the
// tester's clients stop within 5 s of the cut, it is marked lost, and
// after the heal its samples arrive (tester-back): nothing is lost.
func TestFailPartitionHealed(t *testing.T) {
	t.Parallel()
	calls := filepath.Join(t.TempDir(), "calls")
	exp := failClientExp(t, calls, 1, "40s", "")
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	failKillMarked(t, mark)
	listen := freeAddr(t)
	relay := failStartRelay(t, listen)
	run := hardenStartRun(t, mark, "run", exp, "--out", out, "--listen", listen, "--advertise", relay.ln.Addr().String())
	waitEvent(t, out, "started", 0)
	time.Sleep(3 * time.Second)
	relay.pause(true)
	cut := time.Now()
	lost := waitEvent(t, out, "tester-lost", 0)
	if at := time.Unix(0, int64(lost["t_ns"].(float64))); at.Sub(cut) > 4*time.Second {
		t.Errorf("marked lost %v after the cut", at.Sub(cut))
	}
	time.Sleep(20*time.Second - time.Since(cut))
	if n, last := failCallsAfter(t, calls, cut.Add(5*time.Second)); n > 0 {
		t.Errorf("%d calls began more than 5 s after the cut (the last %v after it): the clients must stop", n, last.Sub(cut))
	}
	relay.pause(false)
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	waitEvent(t, out, "tester-back", 0)
	late := waitEvent(t, out, "late-samples", 0)
	if d, _ := late["detail"].(string); !strings.HasSuffix(d, " samples came after it was lost") || strings.HasPrefix(d, "0 ") {
		t.Errorf("late-samples says %q, want its late samples", d)
	}
	row := testerRow(t, out, 0)
	if row.int(t, "samples_lost") != 0 || row.int(t, "samples_received") != row.int(t, "samples_sent") || row.str(t, "failed") != "true" {
		t.Errorf("testers.csv: sent %d received %d lost %d failed %s: want nothing lost, the tester failed as lost",
			row.int(t, "samples_sent"), row.int(t, "samples_received"), row.int(t, "samples_lost"), row.str(t, "failed"))
	}
	hardenNothingLost(t, out, mark, 1)
}

// TestFailControllerKilled kills the controller with SIGKILL mid-run: no
// tester or client process is left 5 s later, no call begins after that,
// and `diperf analyze` recovers every sample the testers had acknowledged.
func TestFailControllerKilled(t *testing.T) {
	t.Parallel()
	calls := filepath.Join(t.TempDir(), "calls")
	exp := failClientExp(t, calls, 3, "30s", "")
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	failKillMarked(t, mark)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	waitEvent(t, out, "started", 2)
	time.Sleep(2 * time.Second)
	if err := run.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-run.done
	if left := hardenLeft(t, mark); len(left) > 0 {
		t.Fatalf("processes of the run alive 5 s after its controller was killed: %s", describePIDs(left))
	}
	if n, last := failCallsAfter(t, calls, killed.Add(5*time.Second)); n > 0 {
		t.Errorf("%d calls began more than 5 s after the kill (the last %v after it)", n, last.Sub(killed))
	}
	if res := diperf(t, time.Minute, "analyze", out); res.code != 0 {
		t.Fatalf("analyze: exit %d\n%s", res.code, res.stderr)
	}
	got := parquetSeqs(t, out)
	if n, acked := crashCheckAcked(t, out, got); n < 3 || acked == 0 {
		t.Errorf("%d tester logs said what was acknowledged (%d samples), want all 3", n, acked)
	}
}

// TestFailClientIgnoringTermIsKilled runs clients that ignore SIGTERM and
// sleep far past their timeout and the run: they are killed at stop and
// cleanup, and no process of the run is left.
func TestFailClientIgnoringTermIsKilled(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, `name: stubborn
client:
  exec: [sh, -c, "trap '' TERM; sleep 60"]
  timeout: 1s
schedule:
  testers: 2
  tester_start_interval: 200ms
  tester_duration: 3s
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	failKillMarked(t, mark)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	if code := run.wait(t, time.Minute); code != 1 { // every call timed out
		t.Fatalf("exit %d, want 1 (no call succeeded)\n%s", code, run.stderr.String())
	}
	if left := hardenLeft(t, mark); len(left) > 0 {
		t.Errorf("processes of the run alive 5 s after it ended: %s", describePIDs(left))
	}
	if s := readSummary(t, out); s.Samples.Total == 0 {
		t.Error("no samples: every call should have timed out and been recorded")
	}
}

// TestFailTesterDiskFull puts the testers' spools on a tiny tmpfs that is
// full: the run completes with every sample (over the wire), and the
// spool error is in events.jsonl.
func TestFailTesterDiskFull(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	out := filepath.Join(t.TempDir(), "run")
	logs := filepath.Join(out, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "failtmp", logs).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, b)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", logs).Run() })
	filler, err := os.Create(filepath.Join(logs, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = filler.Write(make([]byte, 60<<10)) // fills what it can: the rest of the tmpfs is a few pages
	filler.Close()
	calls := filepath.Join(t.TempDir(), "calls")
	exp := failClientExp(t, calls, 2, "4s", "")
	res := diperf(t, time.Minute, "run", exp, "--out", out)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	found := false
	for _, e := range eventsOf(t, out) {
		found = found || e["event"] == "spool-error"
	}
	if !found {
		t.Error("no spool-error event: the full disk went unreported")
	}
	s := readSummary(t, out)
	if s.Samples.Total == 0 || s.Samples.Lost != 0 {
		t.Errorf("summary: %d samples, %d lost; want every sample", s.Samples.Total, s.Samples.Lost)
	}
}
