package controller

import "runtime"

// heapFloor is the least heap the garbage collector paces itself on while
// testers are connected: a pointer-free ballast that nothing ever writes,
// so that it takes address space but no resident memory (fresh pages from
// the kernel are never touched), and no marking either. Without it a
// controller whose live heap is small (some 40 MB at 1,000 testers, now
// that an idle connection holds no buffers) collects several times a
// second at 1M samples/s, each cycle scanning every session's stack:
// 45% more controller CPU was measured (diperf bench controller --testers
// 1000 --rate 1000000) than with the 32 MB of per-connection buffers that
// used to play this part (as much as they took, so that the heap, and the
// garbage let pile up between cycles, stay as they were: 64 MB brought CPU
// back as well, but 25% more resident memory). Past some hundred MB of live
// heap it changes nothing. Its pages stay untouched as long as the heap
// has no 32 MB of freed memory to reuse (which it would zero) when
// conduct starts: true of a young controller process, but for the odd one
// (1 in 10 measured) whose ballast span overlaps a few pages used and
// released before, which the runtime then zeroes whole: 32 MB resident.
const heapFloor = 32 << 20

// holdHeapFloor allocates the ballast; it stays until release is called.
func holdHeapFloor() (release func()) {
	b := newHeapFloor()
	return func() { runtime.KeepAlive(b) }
}

// newHeapFloor allocates the ballast, written by nobody.
func newHeapFloor() []byte { return make([]byte, heapFloor) }
