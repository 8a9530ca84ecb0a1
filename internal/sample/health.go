package sample

// Health is what may have limited one tester as a load generator over one
// second of its run (docs/design/018-tester-health.md). The tester measures
// it; the controller bounds it, sets Slot and maps T onto the global
// timeline, and stores it in the run directory's health table.
type Health struct {
	Slot int   // the tester (testers.csv slot); set by the controller, never from the wire
	T    int64 // the second, global Unix seconds
	// CPUPct is the tester's process tree CPU (user+system, its clients
	// included) over the second, in % of the CPU it may use (CPUCores):
	// 100 means it used all of it.
	CPUPct   float64
	CPUCores float64 // the CPU it may use: its affinity cores, capped by a cgroup quota
	// HostBusyPct and HostStealPct are the busy and stolen shares (%) of
	// the host CPUs it may run on; NaN when the kernel does not show them.
	HostBusyPct  float64
	HostStealPct float64
	// LagMeanMs and LagMaxMs are how late the calls started in the second
	// started behind their intended starts (open model: the schedule's
	// instant; closed model: the previous call's end plus the think time),
	// ms; Starts counts those calls (0: the lags are 0 and mean nothing).
	LagMeanMs float64
	LagMaxMs  float64
	Starts    int
	// ThrottledPct is the share (%) of its CPU quota's periods in which
	// its cgroup was throttled over the second (its quota used up: the
	// testers and clients of the cgroup waited for the next period); NaN
	// when it has no quota, or the kernel does not show it.
	ThrottledPct float64
	FDs          int // open descriptors at the second's end
	FDLimit      int // its descriptor limit (the soft RLIMIT_NOFILE)
}
