package controller

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestHeapFloorCostsNoResidentMemory: the ballast raises the heap the
// collector paces on by heapFloor, and the resident memory of a young
// process (as the controller is when it starts conducting) by next to
// nothing. It runs in a fresh process: one whose heap has grown and shrunk
// (other tests) may zero, and so touch, reused memory for it.
func TestHeapFloorCostsNoResidentMemory(t *testing.T) {
	if os.Getenv("DIPERF_HEAPFLOOR_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHeapFloorCostsNoResidentMemory$", "-test.count=1")
		cmd.Env = append(os.Environ(), "DIPERF_HEAPFLOOR_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	runtime.GC()
	rss0, goal0 := residentBytes(t), heapGoal()
	release := holdHeapFloor()
	defer release()
	runtime.GC()
	rss1, goal1 := residentBytes(t), heapGoal()
	if d := rss1 - rss0; d > heapFloor/8 {
		t.Errorf("the heap floor made the process %d MB larger in memory, want next to nothing", d>>20)
	}
	if goal1-goal0 < heapFloor {
		t.Errorf("the heap goal rose by %d MB, want at least %d", (goal1-goal0)>>20, heapFloor>>20)
	}
}

func heapGoal() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.NextGC)
}

func residentBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm:", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}
