package protocol

import (
	"math/bits"
	"sync"
)

// Buffers of a Conn come from pools of power-of-two size classes, from
// minBufClass to maxBufClass bytes, and go back as soon as no frame is in
// flight: an idle connection holds none (what lets one controller keep
// many thousands of idle testers connected for a few KB each).
const (
	minBufShift = 10 // 1 KiB
	maxBufShift = 21 // 2 MiB: a largest secured frame and its header fit
	minBufClass = 1 << minBufShift
	maxBufClass = 1 << maxBufShift
	// readAhead is the smallest buffer a Conn reads into: what comes in
	// one read(2) when frames arrive back to back.
	readAhead = 16 << 10
)

// bufPools holds one pool per size class; it stores *[]byte so that a
// Put does not allocate.
var bufPools [maxBufShift - minBufShift + 1]sync.Pool

// bufClass returns the index of the smallest class holding n bytes.
func bufClass(n int) int {
	if n <= minBufClass {
		return 0
	}
	return bits.Len(uint(n-1)) - minBufShift
}

// getBuf returns a buffer of at least n bytes (len = its class size), n at
// most maxBufClass.
func getBuf(n int) *[]byte {
	i := bufClass(n)
	if b, ok := bufPools[i].Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 1<<(i+minBufShift))
	return &b
}

// putBuf returns a buffer from getBuf to its pool.
func putBuf(b *[]byte) {
	bufPools[bufClass(len(*b))].Put(b)
}
