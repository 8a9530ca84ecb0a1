//go:build linux

package client

import "container/heap"

// dueHeap orders waiting clients by when their next call is due.
type dueHeap []*lconn

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].next < h[j].next }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push implements heap.Interface.
func (h *dueHeap) Push(x any) { *h = append(*h, x.(*lconn)) }

// Pop implements heap.Interface.
func (h *dueHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// heapPush adds c to h.
func heapPush(h *dueHeap, c *lconn) { heap.Push(h, c) }
