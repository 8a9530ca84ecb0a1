package controller

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestHeapFloorCostsNoResidentMemory: the ballast raises the heap the
// collector paces on by heapFloor, and costs a young process (as the
// controller is when it starts conducting) next to no resident memory:
// its own pages, asked of the kernel with mincore(2), are not in memory.
// Each try runs in a fresh process (one whose heap has grown and shrunk
// may zero, and so touch, reused memory for it). Even there the runtime
// zeroes the whole span now and then, when it overlaps a few pages used
// and released before (1 fresh process in 10 here): the ballast must stay
// out of memory in most of heapFloorTries processes, and raise the heap
// goal in every one.
func TestHeapFloorCostsNoResidentMemory(t *testing.T) {
	if os.Getenv("DIPERF_HEAPFLOOR_CHILD") == "" {
		touched := 0
		for range heapFloorTries {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHeapFloorCostsNoResidentMemory$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "DIPERF_HEAPFLOOR_CHILD=1")
			out, err := cmd.CombinedOutput()
			if strings.Contains(string(out), heapFloorTouched) {
				touched++
			} else if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		}
		t.Logf("the heap floor was in memory in %d of %d fresh processes", touched, heapFloorTries)
		if touched > heapFloorTries/2 {
			t.Errorf("the heap floor was in memory in %d of %d fresh processes, want next to none", touched, heapFloorTries)
		}
		return
	}
	runtime.GC()
	goal0 := heapGoal()
	b := newHeapFloor()
	runtime.GC()
	goal1 := heapGoal()
	if in := residentPages(t, b); in > heapFloor/8 {
		t.Logf("%s: %d MB of its %d MB", heapFloorTouched, in>>20, heapFloor>>20)
	}
	if goal1-goal0 < heapFloor {
		t.Errorf("the heap goal rose by %d MB, want at least %d", (goal1-goal0)>>20, heapFloor>>20)
	}
	runtime.KeepAlive(b)
}

// heapFloorTries is how many fresh processes the test allocates the
// ballast in; heapFloorTouched is what a child says when it was in memory.
const (
	heapFloorTries   = 15
	heapFloorTouched = "the heap floor is in memory"
)

func heapGoal() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.NextGC)
}

// residentPages is how many bytes of b's whole pages are in memory
// (mincore(2)).
func residentPages(t *testing.T, b []byte) int64 {
	t.Helper()
	page := os.Getpagesize()
	if len(b) < page {
		t.Fatal("the ballast is smaller than a page")
	}
	vec := make([]byte, (len(b)+page-1)/page)
	n := len(b) / page * page
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(n), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Skip("mincore:", e)
	}
	var in int64
	for _, v := range vec[:n/page] {
		if v&1 != 0 {
			in += int64(page)
		}
	}
	return in
}
