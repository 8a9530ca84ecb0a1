package e2e

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// crashExperiment: 20 testers, a 2 s ramp, 8 s each, a cheap client.
const crashExperiment = `name: crash
client:
  exec: ["true"]
schedule:
  testers: 20
  tester_start_interval: 100ms
  tester_duration: 8s
  client_interval: 50ms
`

// crashSpan is the run's span from its first tester's "started" event
// (which comes with its first batch, up to 0.5 s after its start) to the
// end of the last tester, ramped in 1.9 s later and running 8 s: 9.4 s at
// least, a slow machine ramps slower.
const crashSpan = 9 * time.Second

// crashRequireAcks makes the comparison with what the testers logged as
// acknowledged required (testers log acked_samples=N on every exit path).
const crashRequireAcks = true

// TestControllerKilledRunIsRecovered kills the controller with SIGKILL at
// a random moment of a 20-tester run, DIPERF_CRASH_ROUNDS times (2 by
// default; DIPERF_CRASH_SEED fixes the moments): every time no process of
// the run outlives it by 5 s, its spool holds a readable prefix, and
// `diperf analyze` recovers every sample the controller had (and every
// one it acknowledged), reporting the run incomplete.
func TestControllerKilledRunIsRecovered(t *testing.T) {
	t.Parallel()
	rounds := 2
	if s := os.Getenv("DIPERF_CRASH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("DIPERF_CRASH_ROUNDS=%q: want a positive number", s)
		}
		rounds = n
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("DIPERF_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("DIPERF_CRASH_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (DIPERF_CRASH_SEED=%d repeats these kill moments)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 8))
	exp := writeExperiment(t, crashExperiment)
	acked := 0
	for round := range rounds {
		at := time.Duration(rng.Int64N(int64(crashSpan)))
		t.Run("round"+strconv.Itoa(round), func(t *testing.T) {
			acked += crashRound(t, exp, at)
		})
	}
	if acked == 0 {
		if crashRequireAcks {
			t.Errorf("no tester log says acked_samples=N: the comparison with the acknowledged samples was not made")
		} else {
			t.Logf("no tester logs acked_samples=N yet: the comparison with the acknowledged samples was skipped")
		}
	}
}

// crashRound runs one kill at `at` into the span and checks everything;
// it returns how many testers logged what was acknowledged to them.
func crashRound(t *testing.T, exp string, at time.Duration) int {
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	waitEvent(t, out, "started", 0)
	t.Logf("killing the controller %v after its first tester started", at.Round(time.Millisecond))
	time.Sleep(at)
	if err := run.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-run.done; err == nil {
		t.Fatalf("the run ended by itself before the kill %v into it; crashSpan is too long", at)
	}
	if left := hardenLeft(t, mark); len(left) > 0 {
		t.Fatalf("processes of the run alive 5 s after its controller was killed: %s", describePIDs(left))
	}
	spooled := crashReadSpool(t, out)
	truth := readTruth(t, filepath.Join(out, rundir.Spool), localTesterSpools(t, out))
	res := diperf(t, time.Minute, "analyze", out)
	if res.code != 0 {
		t.Fatalf("analyze of the crashed run: exit %d\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "from the spool; the run is incomplete") || !strings.Contains(res.stdout, "incomplete run") {
		t.Errorf("analyze does not report the run incomplete:\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}
	if s := readSummary(t, out); !s.Incomplete || s.IncompleteReason == "" {
		t.Errorf("summary.json not marked incomplete: %v %q", s.Incomplete, s.IncompleteReason)
	}
	got := parquetSeqs(t, out)
	for slot, seqs := range spooled {
		n := 0
		for _, seq := range seqs {
			if got[slot][seq] {
				n++
			}
		}
		if n != len(seqs) {
			t.Errorf("tester %d: %d samples in the spool, %d of them in samples.parquet", slot, len(seqs), n)
		}
	}
	checkMerged(t, out, truth)
	n, acked := crashCheckAcked(t, out, got)
	total := 0
	for _, seqs := range got {
		total += len(seqs)
	}
	t.Logf("recovered %d samples of %d testers (%d from their own spools only); %d testers logged %d acknowledged samples, all recovered unless said above",
		total, len(got), truth.own, n, acked)
	if res := diperf(t, time.Minute, "analyze", out); res.code != 0 || !strings.Contains(res.stdout, "incomplete run") {
		t.Errorf("a second analyze: exit %d, stdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	return n
}

// crashReadSpool checks that the crashed run's spool is there, not empty,
// and replays (a torn last frame allowed); it returns the sample seqs of
// each tester in it.
func crashReadSpool(t *testing.T, dir string) map[int][]uint64 {
	t.Helper()
	path := filepath.Join(dir, rundir.Spool)
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 {
		t.Fatalf("the crashed run's spool is missing or empty (%v)", err)
	}
	seqs := map[int][]uint64{}
	records := 0
	err = rundir.ReadSpool(path, rundir.SpoolVisitor{
		Batch: func(slot int, b *protocol.Batch) error {
			for _, s := range b.Samples {
				seqs[slot] = append(seqs[slot], s.Seq)
			}
			return nil
		},
		Sync:   func(int, clock.Record) error { return nil },
		Tester: func(rundir.TesterRecord) error { records++; return nil },
	})
	if err != nil {
		t.Fatalf("the crashed run's spool does not replay: %v", err)
	}
	if records == 0 || len(seqs) == 0 {
		t.Fatalf("the spool holds %d tester records and samples of %d testers; the first tester had started", records, len(seqs))
	}
	return seqs
}

var crashAckedRE = regexp.MustCompile(`acked_samples=(\d+)`)

// crashCheckAcked compares samples.parquet with what each tester logged
// as acknowledged (the last acked_samples=N of its log: samples 1..N):
// all N must be there. It returns how many testers logged it, and the
// sum of their N.
func crashCheckAcked(t *testing.T, dir string, got map[int]map[uint64]bool) (logged int, acked uint64) {
	t.Helper()
	for slot := range 20 {
		b, err := os.ReadFile(rundir.LogPath(dir, slot))
		if err != nil {
			continue // never launched
		}
		m := crashAckedRE.FindAllSubmatch(b, -1)
		if len(m) == 0 {
			continue
		}
		logged++
		n, _ := strconv.ParseUint(string(m[len(m)-1][1]), 10, 64)
		acked += n
		have := uint64(0)
		for seq := range got[slot] {
			if seq >= 1 && seq <= n {
				have++
			}
		}
		if have != n {
			t.Errorf("tester %d: acknowledged samples 1..%d, samples.parquet has %d of them", slot, n, have)
		}
	}
	return logged, acked
}
