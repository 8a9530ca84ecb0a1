package netsim

import (
	"sync"
	"testing"
	"time"
)

// TestSchedulerPrecision checks that packets leave at their due time, in
// due order, measuring the lateness of each delivery.
func TestSchedulerPrecision(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	defer close(done)
	var mu sync.Mutex
	var late []time.Duration
	var order []uint64
	got := make(chan struct{}, 200)
	deliver := func(p packet) {
		now := time.Now()
		mu.Lock()
		late = append(late, now.Sub(p.due))
		order = append(order, p.seq)
		mu.Unlock()
		got <- struct{}{}
	}
	b := &budget{max: 1000}
	s := newScheduler(Delay{Base: 2 * time.Millisecond, Jitter: 30 * time.Millisecond},
		newRand(1, 0, streamUp), b, done, deliver)
	go s.run()
	const n = 100
	for range n {
		s.schedule(time.Now(), nil, nil)
		time.Sleep(300 * time.Microsecond)
	}
	for range n {
		<-got
	}
	mu.Lock()
	defer mu.Unlock()
	for _, d := range late {
		if d < 0 {
			t.Fatalf("delivered %v early", -d)
		}
	}
	p50, p90, p100 := pct(late, 0.5), pct(late, 0.9), pct(late, 1)
	t.Logf("scheduler lateness over %d packets: p50 %v p90 %v max %v", n, p50, p90, p100)
	if p50 > 200*time.Microsecond {
		t.Errorf("median lateness %v, want <= 200µs", p50)
	}
	if b.held.Load() != 0 {
		t.Errorf("held = %d after delivery, want 0", b.held.Load())
	}
	if !reordered(order) {
		t.Error("30 ms jitter on 300 µs spacing never reordered packets")
	}
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
