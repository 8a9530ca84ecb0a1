package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/rundir"
)

// SynthOptions shape a synthetic run directory.
type SynthOptions struct {
	Samples       int64         // calls in all
	Testers       int           // testers, started one every StartInterval
	StartInterval time.Duration // ramp-up
	BaseRT        time.Duration // response time with the service idle
	Capacity      int           // calls in flight the service serves at BaseRT; beyond, calls slow down in proportion
	FailEvery     int           // every FailEvery-th call fails (0: none)
	Seed          uint64
}

// synthEpoch is the synthetic run's start, global Unix ns.
const synthEpoch = int64(1_790_000_000) * int64(time.Second)

// synthFlush is how often a synthetic tester's samples reach the file: the
// rows come out in the order a controller would receive them, a flush
// interval of every tester after another.
const synthFlush = int64(time.Second)

// WriteSynthRun writes a run directory in dir that looks like a real run
// of o: experiment.yaml, testers.csv, syncs.csv and samples.parquet, the
// rows in arrival order. Each tester calls back to back; a call's response
// time is BaseRT, stretched by the planned number of testers active beyond
// Capacity, with ±20% noise. Each tester's clock has a small offset and
// drift, with two sync records to map them.
func WriteSynthRun(dir string, o SynthOptions) error {
	if o.Samples < 1 || o.Testers < 1 || o.BaseRT <= 0 || o.Capacity < 1 {
		return fmt.Errorf("bench: synthetic run needs samples, testers, a response time and a capacity")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := newSynth(o)
	if err := rundir.WriteBytes(dir, rundir.Experiment, []byte(g.experiment())); err != nil {
		return err
	}
	if err := rundir.WriteRows(dir, g.fill); err != nil {
		return err
	}
	return rundir.WriteTesters(dir, g.records())
}

// synthTester is the state of one synthetic tester.
type synthTester struct {
	id        string
	start     int64 // global ns of its first call
	next      int64 // global ns of its next call start
	calls     int64 // calls still to make
	seq       int64
	end       int64   // end of its last call
	finished  bool    // counted in synth.done
	offset    int64   // local − global at start, ns
	driftPPM  float64 // local clock rate error
	failEvery int
}

// synth generates the rows of a synthetic run.
type synth struct {
	o       SynthOptions
	rng     *rand.Rand
	testers []synthTester
	now     int64 // end of the flush interval being emitted
	cursor  int   // next tester to emit in this interval
	done    int   // testers with no calls left
	rampEnd int64
}

// newSynth plans the testers of o.
func newSynth(o SynthOptions) *synth {
	g := &synth{o: o, rng: rand.New(rand.NewPCG(o.Seed, 7)), now: synthEpoch + synthFlush}
	per, extra := o.Samples/int64(o.Testers), o.Samples%int64(o.Testers)
	for i := range o.Testers {
		n := per
		if int64(i) < extra {
			n++
		}
		st := synthEpoch + int64(i)*int64(o.StartInterval)
		g.testers = append(g.testers, synthTester{
			id: "synth-" + strconv.Itoa(i/100) + ":" + strconv.Itoa(1000+i), start: st, next: st, calls: n,
			offset: g.rng.Int64N(2e6) - 1e6, driftPPM: g.rng.Float64()*20 - 10, failEvery: o.FailEvery,
		})
		if n == 0 {
			g.testers[i].finished = true
			g.done++
		}
	}
	g.rampEnd = synthEpoch + int64(o.Testers)*int64(o.StartInterval)
	return g
}

// active is the planned number of testers running at global time t: the
// ramp, then all of them (the synthetic service's load).
func (g *synth) active(t int64) int {
	if t >= g.rampEnd {
		return len(g.testers)
	}
	return int((t-synthEpoch)/int64(g.o.StartInterval)) + 1
}

// fill writes the next rows into buf; 0 when every call is out.
func (g *synth) fill(buf []rundir.Row) (int, error) {
	n := 0
	for n < len(buf) && g.done < len(g.testers) {
		if g.cursor == len(g.testers) {
			g.cursor, g.now = 0, g.now+synthFlush
		}
		t := &g.testers[g.cursor]
		for n < len(buf) && t.calls > 0 && t.next < g.now {
			buf[n] = g.call(g.cursor, t)
			n++
		}
		if t.calls == 0 && !t.finished {
			t.finished = true
			g.done++
		}
		if n < len(buf) || t.calls == 0 || t.next >= g.now {
			g.cursor++
		}
	}
	return n, nil
}

// call makes tester t's next call.
func (g *synth) call(i int, t *synthTester) rundir.Row {
	load := float64(g.active(t.next)) / float64(g.o.Capacity)
	d := float64(g.o.BaseRT) * max(1, load) * (0.8 + 0.4*g.rng.Float64())
	start, end := t.next, t.next+int64(d)
	t.seq++
	t.calls--
	t.next, t.end = end, end
	status, errText := "ok", ""
	if t.failEvery > 0 && t.seq%int64(t.failEvery) == 0 {
		status, errText = "failed", "exit status 1"
	}
	return rundir.Row{Tester: int32(i), TesterID: t.id, Seq: t.seq, StartNs: start, EndNs: end,
		LocalStartNs: t.local(start), Status: status, Bytes: 512, Error: errText}
}

// local is global time g on the tester's clock.
func (t *synthTester) local(g int64) int64 {
	return g + t.offset + int64(float64(g-t.start)*t.driftPPM/1e6)
}

// records describes the testers for testers.csv and syncs.csv: two syncs
// each, at its start and at its end, which map its clock exactly.
func (g *synth) records() []*rundir.TesterRecord {
	out := make([]*rundir.TesterRecord, len(g.testers))
	for i := range g.testers {
		t := &g.testers[i]
		end := t.end
		if end <= t.start {
			end = t.start + int64(time.Second)
		}
		rec := &rundir.TesterRecord{Slot: i, ID: t.id, Host: t.id[:len(t.id)-5], PID: 1000 + i,
			LaunchNs: t.start - int64(time.Second), StartNs: t.start, StopNs: end,
			Sent: uint64(t.seq), Received: uint64(t.seq)}
		for _, at := range []int64{t.start, end} {
			l := t.local(at)
			rec.Syncs = append(rec.Syncs, clock.Record{LocalNs: l, OffsetNs: at - l, RTTNs: 100_000, BoundNs: 60_000})
		}
		out[i] = rec
	}
	return out
}

// experiment is the synthetic run's experiment.yaml.
func (g *synth) experiment() string {
	return fmt.Sprintf(`# A synthetic run written by diperf bench analyze.
name: synthetic
target: http://127.0.0.1:1/
client:
  exec: [diperf, call, http, "$DIPERF_TARGET"]
schedule:
  testers: %d
  tester_start_interval: %s
  tester_duration: 1h
  client_interval: 0s
analysis:
  quantum: 1s
`, g.o.Testers, g.o.StartInterval)
}
