package tester

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// healthReading is one second's measure, before the schedule lag.
type healthReading struct {
	cpuPct, cores, busyPct, stealPct, throttledPct float64
	fds, fdLimit                                   int
}

// measure reads the counters at nowNs (the tester's clock) and returns
// the figures over the time since the last reading (the first reading
// has no CPU figures: NaN).
func (m *healthMeter) measure(nowNs int64) healthReading {
	r := healthReading{cpuPct: nan, cores: m.cores, busyPct: nan, stealPct: nan, throttledPct: nan}
	tree := m.treeSeconds()
	host := m.hostTimes()
	periods := m.quotaPeriods()
	if m.lastNs != 0 && nowNs > m.lastNs && m.cores > 0 {
		secs := float64(nowNs-m.lastNs) / 1e9
		r.cpuPct = min(max(tree-m.treeCPU, 0)/secs/m.cores*100, 100) // tick rounding may overshoot
		r.busyPct, r.stealPct = hostShares(m.host, host)
		r.throttledPct = throttledShare(m.periods, periods)
	}
	m.treeCPU, m.host, m.lastNs, m.periods = tree, host, nowNs, periods
	r.fds = m.openFDs()
	r.fdLimit = m.fdLimit()
	return r
}

// statFields returns the fields of a /proc/<pid>/stat after the command
// name (field 3, the state, is index 0); nil when not readable.
func statFields(stat string) []string {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(stat[i+1:])
}

// ticksAt sums the fields of f at the stat field numbers (1-based, as in
// proc(5)).
func ticksAt(f []string, fields ...int) float64 {
	var sum float64
	for _, n := range fields {
		if n-3 < len(f) {
			v, _ := strconv.ParseFloat(f[n-3], 64)
			sum += v
		}
	}
	return sum
}

// treeSeconds is the CPU time of the process tree, s: its own user and
// system time and its waited-for children's, and every live descendant's
// own (a persistent or long exec client).
func (m *healthMeter) treeSeconds() float64 {
	self := statFields(m.read("proc", strconv.Itoa(m.pid), "stat"))
	ticks := ticksAt(self, 14, 15, 16, 17)
	kids := map[int][]int{}
	stats := map[int][]string{}
	ents, _ := os.ReadDir(filepath.Join(m.root, "/proc"))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == m.pid {
			continue
		}
		f := statFields(m.read("proc", e.Name(), "stat"))
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		kids[ppid] = append(kids[ppid], pid)
		stats[pid] = f
	}
	for todo := kids[m.pid]; len(todo) > 0; {
		pid := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], kids[pid]...)
		ticks += ticksAt(stats[pid], 14, 15)
	}
	return ticks / clockTicks
}

// hostTimes reads the /proc/stat counters of the affinity CPUs (nil when
// not readable).
func (m *healthMeter) hostTimes() []cpuTicks {
	want := map[string]bool{}
	for _, c := range m.cpus {
		want["cpu"+strconv.Itoa(c)] = true
	}
	var out []cpuTicks
	for line := range strings.Lines(m.read("proc", "stat")) {
		f := strings.Fields(line)
		if len(f) < 5 || !want[f[0]] {
			continue
		}
		var t cpuTicks
		for i, s := range f[1:min(len(f), 9)] { // user nice system idle iowait irq softirq steal
			v, _ := strconv.ParseFloat(s, 64)
			t.total += v
			if i == 3 || i == 4 {
				t.idle += v
			}
		}
		t.steal = -1
		if len(f) >= 9 {
			t.steal, _ = strconv.ParseFloat(f[8], 64)
		}
		out = append(out, t)
	}
	return out
}

// hostShares returns the busy and steal shares (%) of the CPUs between
// two readings (NaN when they cannot be compared).
func hostShares(a, b []cpuTicks) (busy, steal float64) {
	if len(a) == 0 || len(a) != len(b) {
		return nan, nan
	}
	var total, idle, st float64
	hasSteal := true
	for i := range a {
		total += b[i].total - a[i].total
		idle += b[i].idle - a[i].idle
		st += b[i].steal - a[i].steal
		hasSteal = hasSteal && a[i].steal >= 0 && b[i].steal >= 0
	}
	if total <= 0 {
		return nan, nan
	}
	busy = min(max((total-idle)/total*100, 0), 100)
	steal = nan
	if hasSteal {
		steal = min(max(st/total*100, 0), 100)
	}
	return busy, steal
}

// openFDs counts the process's open descriptors (not the one the count
// itself holds).
func (m *healthMeter) openFDs() int {
	ents, err := os.ReadDir(filepath.Join(m.root, "/proc", strconv.Itoa(m.pid), "fd"))
	if err != nil {
		return 0
	}
	return max(len(ents)-m.selfFD, 0)
}

// fdLimit reads the soft limit on open files from /proc/<pid>/limits (0:
// unknown; "unlimited", or any limit past 1<<24, is taken as 1<<24).
func (m *healthMeter) fdLimit() int {
	for line := range strings.Lines(m.read("proc", strconv.Itoa(m.pid), "limits")) {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 && f[0] == "unlimited" {
				return 1 << 24
			}
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return min(n, 1<<24) // past it, as good as unlimited
			}
		}
	}
	return 0
}
