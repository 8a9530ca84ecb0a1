package tester

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is the kernel's USER_HZ, the unit of the CPU times in
// /proc/<pid>/stat and /proc/stat: 100 on every Linux architecture.
const clockTicks = 100

// healthMeter measures the tester's self-health from the files of the
// kernel under root ("" for the real /proc and /sys; tests give a tree of
// fake files), keeping the counters of its last reading to take each
// second's difference.
type healthMeter struct {
	root   string
	pid    int
	selfFD int // descriptors the count itself holds open (1 on the real /proc)

	cores   float64    // the CPU it may use (affinity, capped by a cgroup quota)
	cpus    []int      // the CPUs of its affinity mask
	treeCPU float64    // the process tree's CPU seconds at the last reading
	host    []cpuTicks // the affinity CPUs' times at the last reading
	lastNs  int64      // when the last reading was taken (0: none yet)
	quota   cpuQuota   // the cgroup whose CPU quota binds it (dir "": none)
	periods cpuPeriods // its quota periods at the last reading
}

// cpuTicks is one CPU's /proc/stat counters, in ticks: total, idle (idle
// and iowait) and steal (-1: the kernel has no steal column).
type cpuTicks struct{ total, idle, steal float64 }

// newHealthMeter reads what does not change second to second: the CPUs
// the process may run on and its CPU quota.
func newHealthMeter(root string, pid int) *healthMeter {
	m := &healthMeter{root: root, pid: pid}
	if root == "" {
		m.selfFD = 1
	}
	m.cpus = parseCPUList(statusField(m.read("proc", strconv.Itoa(pid), "status"), "Cpus_allowed_list"))
	m.cores = float64(len(m.cpus))
	m.quota = m.cgroupQuota()
	if q := m.quota.cores; q > 0 && (m.cores == 0 || q < m.cores) {
		m.cores = q
	}
	return m
}

// read returns the file at the path elements under root ("" when it
// cannot be read).
func (m *healthMeter) read(elem ...string) string {
	b, err := os.ReadFile(filepath.Join(append([]string{m.root, "/"}, elem...)...))
	if err != nil {
		return ""
	}
	return string(b)
}

// statusField returns the value of the "name:" line of a status file.
func statusField(status, name string) string {
	for line := range strings.Lines(status) {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// parseCPUList parses a CPU list such as "0-3,6" into its CPUs (nil on
// anything malformed); at most 4096 CPUs are taken.
func parseCPUList(s string) []int {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || len(out)+b-a >= 4096 {
			return nil
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out
}

// nan is the value of a figure the kernel does not show.
var nan = math.NaN()
