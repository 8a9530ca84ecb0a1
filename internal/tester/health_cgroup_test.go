package tester

import (
	"math"
	"testing"
)

// TestHealthMeterCgroupV1Quota: a tester in a cgroup v1 cpu hierarchy
// (mounted as cpu,cpuacct) capped at 0.1 core may use 0.1 core, and the
// share of its quota's periods throttled comes from that cgroup's
// cpu.stat.
func TestHealthMeterCgroupV1Quota(t *testing.T) {
	f := setupProc(t)
	f.file("proc/100/cgroup", "4:memory:/x\n3:cpu,cpuacct:/runs/starved\n0::/\n")
	f.file("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n")
	f.file("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n")
	f.file("sys/fs/cgroup/cpu,cpuacct/runs/starved/cpu.cfs_period_us", "100000\n")
	f.file("sys/fs/cgroup/cpu,cpuacct/runs/starved/cpu.cfs_quota_us", "10000\n")
	f.file("sys/fs/cgroup/cpu,cpuacct/runs/starved/cpu.stat", "nr_periods 40\nnr_throttled 10\nthrottled_time 123\n")
	m := newHealthMeter(f.root, 100)
	if m.cores != 0.1 {
		t.Fatalf("cores %v, want 0.1 (the v1 quota 10000/100000)", m.cores)
	}
	if r := m.measure(1e9); !math.IsNaN(r.throttledPct) {
		t.Errorf("the first reading has a throttled share over no time: %v", r.throttledPct)
	}
	f.file("sys/fs/cgroup/cpu,cpuacct/runs/starved/cpu.stat", "nr_periods 50\nnr_throttled 19\nthrottled_time 999\n")
	if r := m.measure(2e9); r.throttledPct != 90 {
		t.Errorf("throttled %v%%, want 90 (9 of 10 periods)", r.throttledPct)
	}
	if r := m.measure(3e9); r.throttledPct != 0 {
		t.Errorf("throttled %v%% over a second not runnable, want 0", r.throttledPct)
	}
}

// TestHealthMeterCgroupV2Throttled: cgroup v2's quota and cpu.stat; no
// quota anywhere gives no throttled share (NaN).
func TestHealthMeterCgroupV2Throttled(t *testing.T) {
	f := setupProc(t) // user.slice caps at 1.5 cores
	f.file("sys/fs/cgroup/user.slice/cpu.stat", "usage_usec 5\nnr_periods 100\nnr_throttled 0\nthrottled_usec 0\n")
	m := newHealthMeter(f.root, 100)
	m.measure(1e9)
	f.file("sys/fs/cgroup/user.slice/cpu.stat", "usage_usec 9\nnr_periods 110\nnr_throttled 5\nthrottled_usec 7\n")
	if r := m.measure(2e9); r.throttledPct != 50 {
		t.Errorf("throttled %v%%, want 50 (5 of 10 periods of the cgroup that holds the quota)", r.throttledPct)
	}
	f.file("sys/fs/cgroup/user.slice/cpu.max", "max 100000\n")
	m = newHealthMeter(f.root, 100)
	m.measure(1e9)
	if r := m.measure(2e9); !math.IsNaN(r.throttledPct) || m.cores != 4 {
		t.Errorf("no quota: throttled %v%%, cores %v; want NaN and the 4 affinity CPUs", r.throttledPct, m.cores)
	}
}
