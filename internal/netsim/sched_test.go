package netsim

import (
	"cmp"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSchedulerDeliversAtDueTimes schedules 100 packets 300 µs apart with
// 2-32 ms of delay on a manual clock, moving the clock from due time to
// due time: the scheduler must always wait for exactly the earliest packet
// (also when a later arrival is due sooner), deliver each at its due time
// to the nanosecond, in due order, which jitter makes differ from arrival
// order.
func TestSchedulerDeliversAtDueTimes(t *testing.T) {
	t.Parallel()
	const n = 100
	clk := newManualClock()
	t0 := clk.now()
	done := make(chan struct{})
	defer close(done)
	type delivery struct {
		seq  uint64
		late time.Duration
	}
	delivered := make(chan delivery, n)
	deliver := func(p packet) { delivered <- delivery{p.seq, clk.now().Sub(p.due)} }
	d := Delay{Base: 2 * time.Millisecond, Jitter: 30 * time.Millisecond}
	b := &budget{max: 1000}
	s := newScheduler(d, newRand(1, 0, streamUp), b, clk, done, deliver)
	go s.run()

	draws := newRand(1, 0, streamUp) // the scheduler's draws, to know each due time
	type held struct {
		seq uint64
		due time.Time
	}
	var pending, want []held
	var got []delivery
	// step moves the clock to each due time up to until, and then to until.
	// A nanosecond before each due time, it makes the scheduler look at
	// its packets, none of which may leave yet.
	step := func(until time.Time) {
		for len(pending) > 0 && !pending[0].due.After(until) {
			e := pending[0].due
			clk.await(t, "the scheduler to wait for the earliest packet", true, func(dues []time.Time) bool {
				return len(dues) == 1 && dues[0].Equal(e)
			})
			clk.advanceTo(e.Add(-1))
			begun := clk.waitsBegun()
			select {
			case s.wake <- struct{}{}:
			default: // a wake-up is pending already
			}
			clk.await(t, "the scheduler to look and wait again", true, func(dues []time.Time) bool {
				return clk.waitsBegun() > begun && len(dues) == 1 && dues[0].Equal(e)
			})
			clk.advanceTo(e)
			for len(pending) > 0 && !pending[0].due.After(e) {
				pending = pending[1:]
				select {
				case dl := <-delivered:
					got = append(got, dl)
				case <-time.After(patience):
					t.Fatalf("a packet due at %v was not delivered", e.Sub(t0))
				}
			}
		}
		clk.advanceTo(until)
	}
	byDue := func(a, b held) int { return cmp.Or(a.due.Compare(b.due), cmp.Compare(a.seq, b.seq)) }
	for i := range n {
		arrived := t0.Add(time.Duration(i) * 300 * time.Microsecond)
		step(arrived)
		if !s.schedule(arrived, nil, nil) {
			t.Fatalf("packet %d refused", i)
		}
		h := held{seq: uint64(i + 1), due: arrived.Add(d.Draw(draws))}
		pending = append(pending, h)
		slices.SortFunc(pending, byDue)
		want = append(want, h)
	}
	step(t0.Add(time.Second))

	slices.SortFunc(want, byDue)
	var order []uint64
	for i, dl := range got {
		if dl.late != 0 {
			t.Errorf("packet %d delivered %v after its due time", dl.seq, dl.late)
		}
		if dl.seq != want[i].seq {
			t.Fatalf("delivery %d was packet %d, want %d (due order)", i, dl.seq, want[i].seq)
		}
		order = append(order, dl.seq)
	}
	if len(got) != n {
		t.Errorf("%d of %d packets delivered", len(got), n)
	}
	if b.held.Load() != 0 {
		t.Errorf("held = %d after delivery, want 0", b.held.Load())
	}
	if !reordered(order) {
		t.Error("30 ms jitter on 300 µs spacing never reordered packets")
	}
}

// BenchmarkSchedulerLateness measures how late, on the real clock, the
// scheduler delivers packets 300 µs apart with 2-32 ms of delay; on an
// idle machine the median is well under 200 µs. A packet delivered early
// fails it.
func BenchmarkSchedulerLateness(b *testing.B) {
	done := make(chan struct{})
	defer close(done)
	var mu sync.Mutex
	var late []time.Duration
	deliver := func(p packet) {
		l := time.Since(p.due)
		mu.Lock()
		late = append(late, l)
		mu.Unlock()
	}
	bud := &budget{max: 1 << 30}
	s := newScheduler(Delay{Base: 2 * time.Millisecond, Jitter: 30 * time.Millisecond},
		newRand(1, 0, streamUp), bud, realClock{}, done, deliver)
	go s.run()
	sent := 0
	for b.Loop() {
		s.schedule(time.Now(), nil, nil)
		sent++
		time.Sleep(300 * time.Microsecond)
	}
	for all := false; !all; time.Sleep(time.Millisecond) {
		mu.Lock()
		all = len(late) == sent
		mu.Unlock()
	}
	mu.Lock()
	defer mu.Unlock()
	if pct(late, 0) < 0 {
		b.Fatalf("a packet was delivered %v early", -pct(late, 0))
	}
	b.ReportMetric(float64(pct(late, 0.5).Microseconds()), "p50-late-µs")
	b.ReportMetric(float64(pct(late, 0.9).Microseconds()), "p90-late-µs")
	b.ReportMetric(float64(pct(late, 1).Microseconds()), "max-late-µs")
}

// reordered reports whether seqs is not ascending.
func reordered(seqs []uint64) bool {
	for i := 1; i < len(seqs); i++ {
		if seqs[i] < seqs[i-1] {
			return true
		}
	}
	return false
}
