package netsim

import "time"

// packet is a datagram held until its due time.
type packet struct {
	due  time.Time
	seq  uint64 // arrival order, breaks ties between equal due times
	sess *udpSession
	data []byte
}

// packetHeap is a min-heap of packets ordered by due time, for container/heap.
type packetHeap []packet

// Len implements heap.Interface.
func (h packetHeap) Len() int { return len(h) }

// Less implements heap.Interface.
func (h packetHeap) Less(i, j int) bool {
	if h[i].due.Equal(h[j].due) {
		return h[i].seq < h[j].seq
	}
	return h[i].due.Before(h[j].due)
}

// Swap implements heap.Interface.
func (h packetHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

// Push implements heap.Interface.
func (h *packetHeap) Push(x any) { *h = append(*h, x.(packet)) }

// Pop implements heap.Interface.
func (h *packetHeap) Pop() any {
	old := *h
	n := len(old) - 1
	p := old[n]
	old[n] = packet{} // drop references for the GC
	*h = old[:n]
	return p
}
