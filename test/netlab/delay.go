package netlab

import (
	"container/heap"
	"errors"
	"net/netip"
	"os"
	"sync"
	"time"
)

// delayer holds packets in user space through NFQUEUE: the kernel has no
// netem. Each host's link gets a one-way delay in each direction: a packet
// entering host B from host A waits delay(A)+delay(B), one entering B from
// the controller's side waits delay(B), one from A to the root namespace
// waits delay(A). Packets queue on INPUT only (never OUTPUT, where holding a
// socket's own packets would throttle it), in each host namespace and, for
// traffic from the hosts, in the root namespace.
type delayer struct {
	mu     sync.RWMutex
	delays map[netip.Addr]time.Duration
	queues []*delayQueue
	wg     sync.WaitGroup
}

// delayQueue is one namespace's queue with its held packets.
type delayQueue struct {
	q      *nfQueue
	host   netip.Addr // the namespace's host, zero for the root namespace
	mu     sync.Mutex
	held   heldHeap
	wake   chan struct{}
	closed chan struct{}
}

type held struct {
	at time.Time
	id uint32
}

type heldHeap []held

func (h heldHeap) Len() int           { return len(h) }
func (h heldHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h heldHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *heldHeap) Push(x any)        { *h = append(*h, x.(held)) }
func (h *heldHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newDelayer() *delayer { return &delayer{delays: map[netip.Addr]time.Duration{}} }

// set records host's one-way delay.
func (d *delayer) set(host netip.Addr, oneWay time.Duration) {
	d.mu.Lock()
	d.delays[host] = oneWay
	d.mu.Unlock()
}

// attach starts serving queue num in the namespace nsPath ("" for the
// caller's); host is the namespace's own address (invalid for the root).
func (d *delayer) attach(nsPath string, num uint16, host netip.Addr) error {
	q, err := openNFQueue(nsPath, num)
	if err != nil {
		return err
	}
	dq := &delayQueue{q: q, host: host, wake: make(chan struct{}, 1), closed: make(chan struct{})}
	d.mu.Lock()
	d.queues = append(d.queues, dq)
	d.mu.Unlock()
	d.wg.Add(2)
	go func() { defer d.wg.Done(); d.receive(dq) }()
	go func() { defer d.wg.Done(); dq.release() }()
	return nil
}

// delayFor is how long a packet with this IPv4 header waits in dq.
func (d *delayer) delayFor(dq *delayQueue, payload []byte) time.Duration {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var wait time.Duration
	if dq.host.IsValid() {
		wait = d.delays[dq.host]
	}
	if len(payload) >= 20 && payload[0]>>4 == 4 {
		wait += d.delays[netip.AddrFrom4([4]byte(payload[12:16]))]
	}
	return wait
}

// receive reads queued packets until the queue closes.
func (d *delayer) receive(dq *delayQueue) {
	buf := make([]byte, 1<<16)
	var pkts []nfPacket
	var now []uint32
	for {
		var err error
		pkts, err = dq.q.read(buf, pkts[:0])
		if errors.Is(err, os.ErrClosed) {
			close(dq.closed)
			return
		}
		if err != nil { // a signal or a full buffer: nothing held is lost by trying again
			time.Sleep(time.Millisecond)
			continue
		}
		arrived := time.Now()
		now = now[:0]
		dq.mu.Lock()
		for _, p := range pkts {
			if w := d.delayFor(dq, p.payload); w > 0 {
				heap.Push(&dq.held, held{at: arrived.Add(w), id: p.id})
			} else {
				now = append(now, p.id)
			}
		}
		dq.mu.Unlock()
		if len(now) > 0 {
			_ = dq.q.accept(now)
		}
		select {
		case dq.wake <- struct{}{}:
		default:
		}
	}
}

// release lets held packets go when their time comes.
func (dq *delayQueue) release() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var due []uint32
	for {
		due = due[:0]
		next := time.Hour
		dq.mu.Lock()
		now := time.Now()
		for dq.held.Len() > 0 {
			if w := dq.held[0].at.Sub(now); w > 0 {
				next = w
				break
			}
			due = append(due, heap.Pop(&dq.held).(held).id)
		}
		dq.mu.Unlock()
		for len(due) > 0 { // one send carries at most a few hundred verdicts
			n := min(len(due), 256)
			_ = dq.q.accept(due[:n])
			due = due[n:]
		}
		timer.Reset(next)
		select {
		case <-timer.C:
		case <-dq.wake:
		case <-dq.closed:
			return
		}
	}
}

// close stops every queue; the kernel drops the packets still held.
func (d *delayer) close() {
	d.mu.Lock()
	qs := d.queues
	d.queues = nil
	d.mu.Unlock()
	for _, dq := range qs {
		_ = dq.q.close()
	}
	d.wg.Wait()
}
