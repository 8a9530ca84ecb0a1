package sensor

import (
	"context"
	"github.com/diperf/diperf/internal/clock"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type fakeDir struct {
	mu      sync.Mutex
	peers   []Peer
	queries int
	results []Result
}

func (d *fakeDir) Sensors(context.Context) ([]Peer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queries++
	return d.peers, nil
}

func (d *fakeDir) Write(_ context.Context, r Result) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.results = append(d.results, r)
	return nil
}

// fakeProber takes the test time on the fake clock; busyOnce peers refuse
// their first bandwidth test, busyAlways peers every one.
type fakeProber struct {
	mu         sync.Mutex
	busyOnce   map[string]bool
	busyAlways map[string]bool
	running    int // tests in progress (never more than one)
	overlap    bool
	log        []Test
	tries      []time.Time // when each bandwidth try began
}

func (p *fakeProber) Run(ctx context.Context, t Test, d time.Duration) (Measurement, error) {
	p.mu.Lock()
	p.running++
	p.overlap = p.overlap || p.running > 1
	if t.Kind == Bandwidth {
		p.tries = append(p.tries, time.Now())
	}
	if t.Kind == Bandwidth && (p.busyOnce[t.Peer.Name] || p.busyAlways[t.Peer.Name]) {
		p.busyOnce[t.Peer.Name] = false
		p.running--
		p.mu.Unlock()
		return Measurement{}, ErrBusy
	}
	p.log = append(p.log, t)
	p.mu.Unlock()
	clock.Sleep(ctx, d)
	p.mu.Lock()
	p.running--
	p.mu.Unlock()
	return Measurement{BandwidthBps: 1e7, Bytes: 6e6}, nil
}

// A sensor tests each eligible peer's bandwidth and latency once per list,
// one test at a time, within its time budget, retries a busy peer,
// queries the directory again after each list, and
// ignores peers of other groups, versions and stale ones.
func TestLoopRunsTheListWithinTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		self := Peer{Name: "a", Groups: []string{"local"}, Version: "1.2"}
		dir := &fakeDir{peers: []Peer{self,
			{Name: "b", Groups: []string{"local"}, Version: "1.0"},
			{Name: "c", Groups: []string{"local", "global"}, Version: "1.9"},
			{Name: "d", Groups: []string{"other"}, Version: "1.2"},
			{Name: "e", Groups: []string{"local"}, Version: "2.0"},
			{Name: "f", Groups: []string{"local"}, Version: "1.2", Stale: true},
		}}
		pr := &fakeProber{busyOnce: map[string]bool{"b": true}}
		var busy []bool
		var reports []Stats
		cfg := Config{Self: self, Period: time.Minute, TestTime: 5 * time.Second, Rand: rand.New(rand.NewPCG(1, 2)),
			Busy: func(b bool) { busy = append(busy, b) }, OnList: func(s Stats) { reports = append(reports, s) }}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		st := Run(ctx, cfg, dir, pr)
		if pr.overlap {
			t.Error("two tests ran at once")
		}
		if st.Busy != 1 || st.Missed != 0 {
			t.Errorf("busy %d, missed %d; want 1 busy (retried), 0 missed", st.Busy, st.Missed)
		}
		for _, r := range dir.results {
			if r.Dst != "b" && r.Dst != "c" {
				t.Fatalf("a result to %s, which is not eligible", r.Dst)
			}
		}
		// 30 min at one test a minute: about 29 tests, so about 7 lists of 4
		if st.Tests < 25 || st.Lists < 6 || dir.queries < st.Lists {
			t.Errorf("%d tests, %d lists, %d queries in 30 min at one test a minute", st.Tests, st.Lists, dir.queries)
		}
		if want := 5.0 / 60; st.Fraction > want+0.001 {
			t.Errorf("spent %.4f of the time testing, budget %.4f", st.Fraction, want)
		}
		if len(reports) != st.Lists || reports[len(reports)-1].Fraction == 0 {
			t.Errorf("%d list reports for %d lists (last %+v): want one after each, with what was spent", len(reports), st.Lists, reports)
		}
		if len(busy) == 0 || len(busy)%2 != 0 {
			t.Errorf("busy hook calls %v: want true/false pairs around bandwidth tests", busy)
		}
	})
}

// A busy peer is tried again after one to two test times, not a list
// later; a peer busy BusyTries times in a row is missed, counted, and
// tried again in the next list.
func TestLoopRetriesABusyPeerSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		self := Peer{Name: "a", Groups: []string{"local"}}
		dir := &fakeDir{peers: []Peer{self, {Name: "b", Groups: []string{"local"}}}}
		const testTime = 5 * time.Second
		cfg := Config{Self: self, Period: time.Minute, TestTime: testTime, Rand: rand.New(rand.NewPCG(5, 6))}
		pr := &fakeProber{busyOnce: map[string]bool{"b": true}}
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
		st := Run(ctx, cfg, dir, pr)
		cancel()
		if len(pr.tries) < 2 || st.Busy != 1 || st.Missed != 0 {
			t.Fatalf("%d tries, busy %d, missed %d: want a refused try, then a test", len(pr.tries), st.Busy, st.Missed)
		}
		if gap := pr.tries[1].Sub(pr.tries[0]); gap < testTime || gap > 2*testTime {
			t.Errorf("tried again %v after the refusal, want within one to two test times", gap)
		}

		pr = &fakeProber{busyOnce: map[string]bool{}, busyAlways: map[string]bool{"b": true}}
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Minute)
		st = Run(ctx, cfg, dir, pr)
		cancel()
		lists := st.Lists + 1 // the last one may be cut short, after fewer tries
		if st.Missed < 3 || st.Busy < BusyTries*st.Missed || st.Busy >= BusyTries*(st.Missed+1) || st.Missed > lists {
			t.Errorf("busy %d, missed %d in %d lists: want %d refusals per missed test, one a list", st.Busy, st.Missed, lists, BusyTries)
		}
	})
}

// Plan lists a bandwidth and a latency test to every peer, shuffled.
func TestPlan(t *testing.T) {
	peers := []Peer{{Name: "b"}, {Name: "c"}, {Name: "d"}}
	tests := Plan(peers, rand.New(rand.NewPCG(3, 4)))
	seen := map[string]int{}
	for _, x := range tests {
		seen[x.Peer.Name+"/"+string(x.Kind)]++
	}
	if len(tests) != 6 || len(seen) != 6 {
		t.Fatalf("plan %v: want 6 distinct tests", tests)
	}
}
