package tester

import (
	"path/filepath"
	"strconv"
	"strings"
)

// cpuQuota is the cgroup whose CPU quota binds the tester most tightly:
// its directory under root (relative, "" when no quota applies), whether
// it is a cgroup v1 cpu hierarchy's, and the quota in cores.
type cpuQuota struct {
	dir   string
	v1    bool
	cores float64
}

// cpuPeriods are a cgroup's quota periods so far (cpu.stat): those in
// which it was runnable, and those of them in which it was throttled.
// ok is false when they could not be read.
type cpuPeriods struct {
	all, throttled float64
	ok             bool
}

// cgroupQuota finds the smallest CPU quota on the process's cgroup path
// up the hierarchy: cgroup v2's cpu.max ("0::" line of /proc/<pid>/cgroup)
// and cgroup v1's cpu.cfs_quota_us over cpu.cfs_period_us (the line whose
// controllers include cpu; its hierarchy mounted at sys/fs/cgroup/cpu or
// under its controllers' names, e.g. cpu,cpuacct).
func (m *healthMeter) cgroupQuota() cpuQuota {
	var best cpuQuota
	for line := range strings.Lines(m.read("proc", strconv.Itoa(m.pid), "cgroup")) {
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			best = m.leastQuota(best, "sys/fs/cgroup", f[2], false)
			continue
		}
		if !hasController(f[1], "cpu") {
			continue
		}
		for _, mount := range []string{"sys/fs/cgroup/cpu", "sys/fs/cgroup/" + f[1]} {
			if m.read(mount, "cpu.cfs_period_us") != "" {
				best = m.leastQuota(best, mount, f[2], true)
				break
			}
		}
	}
	return best
}

// hasController reports whether the comma-separated list names c.
func hasController(list, c string) bool {
	for name := range strings.SplitSeq(list, ",") {
		if name == c {
			return true
		}
	}
	return false
}

// leastQuota walks from the cgroup path up to the root of the hierarchy
// mounted at mount and returns the smallest quota found, or best when
// none is smaller.
func (m *healthMeter) leastQuota(best cpuQuota, mount, path string, v1 bool) cpuQuota {
	for p := filepath.Clean("/" + path); ; p = filepath.Dir(p) {
		dir := filepath.Join(mount, p)
		if q := m.quotaAt(dir, v1); q > 0 && (best.cores == 0 || q < best.cores) {
			best = cpuQuota{dir: dir, v1: v1, cores: q}
		}
		if p == "/" {
			return best
		}
	}
}

// quotaAt is the CPU quota (cores) set on the cgroup at dir; 0 for none.
func (m *healthMeter) quotaAt(dir string, v1 bool) float64 {
	var q, per float64
	var err1, err2 error
	if v1 {
		q, err1 = strconv.ParseFloat(strings.TrimSpace(m.read(dir, "cpu.cfs_quota_us")), 64)
		per, err2 = strconv.ParseFloat(strings.TrimSpace(m.read(dir, "cpu.cfs_period_us")), 64)
	} else {
		f := strings.Fields(m.read(dir, "cpu.max"))
		if len(f) != 2 || f[0] == "max" {
			return 0
		}
		q, err1 = strconv.ParseFloat(f[0], 64)
		per, err2 = strconv.ParseFloat(f[1], 64)
	}
	if err1 != nil || err2 != nil || q <= 0 || per <= 0 {
		return 0 // v1's -1: no quota
	}
	return q / per
}

// quotaPeriods reads the quota periods of the cgroup that binds the
// tester (not ok when none does).
func (m *healthMeter) quotaPeriods() cpuPeriods {
	if m.quota.dir == "" {
		return cpuPeriods{}
	}
	var p cpuPeriods
	var seen int
	for line := range strings.Lines(m.read(m.quota.dir, "cpu.stat")) {
		name, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		switch name {
		case "nr_periods":
			p.all, seen = n, seen+1
		case "nr_throttled":
			p.throttled, seen = n, seen+1
		}
	}
	p.ok = seen == 2
	return p
}

// throttledShare is the share (%) of the quota periods between two
// readings in which the cgroup was throttled: 0 when it never ran out of
// quota, NaN when either reading is missing or the counters went back.
func throttledShare(a, b cpuPeriods) float64 {
	if !a.ok || !b.ok || b.all < a.all || b.throttled < a.throttled {
		return nan
	}
	if b.all == a.all {
		return 0 // not runnable in any period: nothing waited
	}
	return min((b.throttled-a.throttled)/(b.all-a.all)*100, 100)
}
