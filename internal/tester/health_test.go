package tester

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeProc is a tree of fake kernel files under a temporary root.
type fakeProc struct {
	t    *testing.T
	root string
}

// file writes body at the path under the root.
func (f fakeProc) file(path, body string) {
	f.t.Helper()
	p := filepath.Join(f.root, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// stat writes /proc/<pid>/stat with its parent and CPU ticks (utime,
// stime, cutime, cstime); the command name has a space and a parenthesis.
func (f fakeProc) stat(pid, ppid string, ticks ...string) {
	fields := []string{pid, "(a (b) c)", "S", ppid, "1", "1", "0", "-1", "0", "0", "0", "0", "0"}
	f.file("proc/"+pid+"/stat", strings.Join(append(fields, ticks...), " ")+" 20 0 1 0\n")
}

// setupProc makes a tester (pid 100) allowed on CPUs 0-3 in a cgroup
// whose parent caps it at 1.5 CPUs, with a live child (101) and grandchild
// (102), an unrelated process (200), 5 descriptors and a limit of 4096.
func setupProc(t *testing.T) fakeProc {
	f := fakeProc{t, t.TempDir()}
	f.file("proc/100/status", "Name:\tdiperf\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\n")
	f.file("proc/100/cgroup", "0::/user.slice/tester\n")
	f.file("sys/fs/cgroup/user.slice/tester/cpu.max", "max 100000\n")
	f.file("sys/fs/cgroup/user.slice/cpu.max", "150000 100000\n")
	f.file("proc/100/limits", "Limit  Soft Limit Hard Limit Units\nMax open files            4096                 524288               files\n")
	for _, fd := range []string{"0", "1", "2", "3", "4"} {
		f.file("proc/100/fd/"+fd, "")
	}
	f.stat("100", "1", "100", "50", "20", "10")
	f.stat("101", "100", "30", "10", "0", "0")
	f.stat("102", "101", "5", "5", "0", "0")
	f.stat("200", "1", "9999", "9999", "0", "0")
	f.file("proc/stat", "cpu  1 2 3 4 5 6 7 8 9 10\n"+
		"cpu0 100 0 100 800 0 0 0 0 0 0\ncpu1 100 0 100 800 0 0 0 0 0 0\n"+
		"cpu2 100 0 100 800 0 0 0 0 0 0\ncpu3 100 0 100 800 0 0 0 0 0 0\ncpu4 0 0 0 0 0 0 0 0 0 0\n")
	return f
}

func TestHealthMeterFromFakeProc(t *testing.T) {
	f := setupProc(t)
	m := newHealthMeter(f.root, 100)
	if m.cores != 1.5 {
		t.Fatalf("cores %v, want 1.5 (4 affinity CPUs, capped by the parent cgroup's quota)", m.cores)
	}
	first := m.measure(1e9)
	if !math.IsNaN(first.cpuPct) || !math.IsNaN(first.busyPct) {
		t.Errorf("the first reading has figures over no time: %+v", first)
	}
	// one second later: the tree used 90 ticks more (itself 60, its
	// waited children 10, the child 15, the grandchild 5): 0.9 s of 1.5
	// CPUs = 60 %. The unrelated process is not counted.
	f.stat("100", "1", "140", "70", "25", "15")
	f.stat("101", "100", "40", "15", "0", "0")
	f.stat("102", "101", "10", "5", "0", "0")
	f.stat("200", "1", "99999", "99999", "0", "0")
	// each CPU: 100 ticks, 60 busy of which 10 stolen, 40 idle or iowait
	row := "100 0 100 800 0 0 0 0 0 0\n"
	next := "130 0 120 830 10 0 0 10 0 0\n"
	f.file("proc/stat", "cpu  1\ncpu0 "+next+"cpu1 "+next+"cpu2 "+next+"cpu3 "+next+"cpu4 "+row)
	r := m.measure(2e9)
	if math.Abs(r.cpuPct-60) > 1e-9 || math.Abs(r.busyPct-60) > 1e-9 || math.Abs(r.stealPct-10) > 1e-9 {
		t.Errorf("cpu %v %%, busy %v %%, steal %v %%; want 60, 60, 10", r.cpuPct, r.busyPct, r.stealPct)
	}
	if r.fds != 5 || r.fdLimit != 4096 || r.cores != 1.5 {
		t.Errorf("fds %d of %d, cores %v; want 5 of 4096, 1.5", r.fds, r.fdLimit, r.cores)
	}
}

// TestHealthMeterWithoutSteal: a kernel whose /proc/stat has no steal
// column shows the busy share and no steal (NaN, not 0).
func TestHealthMeterWithoutSteal(t *testing.T) {
	f := setupProc(t)
	f.file("proc/100/status", "Cpus_allowed_list:\t2\n")
	f.file("proc/100/cgroup", "0::/\n")
	f.file("sys/fs/cgroup/cpu.max", "max 100000\n")
	f.file("proc/stat", "cpu2 10 0 10 80 0 0 0\n")
	m := newHealthMeter(f.root, 100)
	m.measure(1e9)
	f.file("proc/stat", "cpu2 35 0 35 110 0 0 0\n")
	r := m.measure(2e9)
	if m.cores != 1 || math.Abs(r.busyPct-62.5) > 1e-9 || !math.IsNaN(r.stealPct) {
		t.Errorf("cores %v, busy %v %%, steal %v; want 1, 62.5, NaN", m.cores, r.busyPct, r.stealPct)
	}
}

// TestHealthMeterWithoutProc: no kernel files, no cores: the tester then
// sends no health at all (startHealth).
func TestHealthMeterWithoutProc(t *testing.T) {
	m := newHealthMeter(t.TempDir(), 100)
	r := m.measure(1e9)
	if m.cores != 0 || r.fds != 0 || r.fdLimit != 0 {
		t.Errorf("from nothing: cores %v, %+v", m.cores, r)
	}
}

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string]int{"0-3": 4, "0,2,4-5": 4, "7": 1, "": 0, "3-1": 0, "x": 0, "0-99999": 0} {
		if got := len(parseCPUList(in)); got != want {
			t.Errorf("%q: %d CPUs, want %d", in, got, want)
		}
	}
}
