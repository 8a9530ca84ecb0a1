package protocol

// MaxHealthBatch is the most seconds one HealthBatch may carry: a tester
// sends its seconds with every sample flush, at least every few seconds.
const MaxHealthBatch = 64

// HealthSecond is one second of a tester's self-health (sample.Health,
// docs/design/018-tester-health.md) as it sends it: stamped on its own
// clock, every figure unchecked until the controller bounds it.
type HealthSecond struct {
	LocalNs int64   `json:"local_ns"` // the second's end, on the tester's clock
	CPUPct  float64 `json:"cpu_pct"`  // process tree CPU, % of CPUCores
	// CPUCores is the CPU the tester may use: its affinity cores, capped
	// by a cgroup quota.
	CPUCores float64 `json:"cpu_cores"`
	// HostBusyPct and HostStealPct are the busy and stolen shares of the
	// host CPUs it may run on; nil when the kernel does not show them.
	HostBusyPct  *float64 `json:"host_busy_pct,omitempty"`
	HostStealPct *float64 `json:"host_steal_pct,omitempty"`
	// ThrottledPct is the share of its CPU quota's periods in which its
	// cgroup was throttled; nil without a quota.
	ThrottledPct *float64 `json:"throttled_pct,omitempty"`
	LagMeanMs    float64  `json:"lag_mean_ms"` // schedule lag of the calls started, mean
	LagMaxMs     float64  `json:"lag_max_ms"`  // and largest
	Starts       int      `json:"starts"`      // calls started in the second
	FDs          int      `json:"fds"`         // open descriptors
	FDLimit      int      `json:"fd_limit"`    // soft RLIMIT_NOFILE
}

// HealthBatch is the payload of a TypeHealth frame.
type HealthBatch struct {
	Seconds []HealthSecond `json:"seconds"`
}
