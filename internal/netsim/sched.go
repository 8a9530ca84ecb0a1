package netsim

import (
	"container/heap"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// budget bounds the number of packets held across a proxy's schedulers.
type budget struct {
	held atomic.Int64
	max  int64
}

// acquire reserves room for one packet, reporting false when full.
func (b *budget) acquire() bool {
	if b.held.Add(1) > b.max {
		b.held.Add(-1)
		return false
	}
	return true
}

// release frees the room of one delivered packet.
func (b *budget) release() { b.held.Add(-1) }

// scheduler holds the packets of one direction in a min-heap and delivers
// each at its due time from a single goroutine (run). Packets are delivered
// in due-time order, so jitter may reorder them.
type scheduler struct {
	delay   Delay
	deliver func(packet)
	budget  *budget
	clk     clock
	wake    chan struct{} // signalled when a new earliest packet arrives
	done    <-chan struct{}

	mu   sync.Mutex
	rng  *rand.Rand
	heap packetHeap
	seq  uint64
}

// newScheduler returns a scheduler delivering at due times on clk; start
// it with go s.run().
func newScheduler(d Delay, rng *rand.Rand, b *budget, clk clock, done <-chan struct{}, deliver func(packet)) *scheduler {
	return &scheduler{delay: d, deliver: deliver, budget: b, clk: clk, wake: make(chan struct{}, 1), done: done, rng: rng}
}

// schedule queues data, which arrived at the given time, for delivery after
// a freshly drawn delay. It reports false if the held-packet bound is hit.
func (s *scheduler) schedule(arrived time.Time, sess *udpSession, data []byte) bool {
	if !s.budget.acquire() {
		return false
	}
	s.mu.Lock()
	s.seq++
	p := packet{due: arrived.Add(s.delay.Draw(s.rng)), seq: s.seq, sess: sess, data: data}
	heap.Push(&s.heap, p)
	first := s.heap[0].seq == p.seq
	s.mu.Unlock()
	if first {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// next pops the earliest packet if it is due. Otherwise it returns when
// the earliest is due, or a zero time if nothing is held.
func (s *scheduler) next() (p packet, due time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.heap) == 0 {
		return packet{}, time.Time{}, false
	}
	if due = s.heap[0].due; due.After(s.clk.now()) {
		return packet{}, due, false
	}
	s.budget.release() // once popped, the packet no longer counts as held
	return heap.Pop(&s.heap).(packet), due, true
}

// run delivers packets at their due times until done is closed. Packets
// still held at that point are discarded.
func (s *scheduler) run() {
	w := s.clk.newWaiter(true)
	for {
		p, due, ok := s.next()
		if ok {
			s.deliver(p)
			continue
		}
		// Woken by an earlier packet, or due: look again.
		if !w.until(due, s.wake, s.done) && ready(s.done) {
			return
		}
	}
}
