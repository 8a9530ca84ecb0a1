package live

import "github.com/diperf/diperf/internal/stats"

// Second is the run's figures for one second of the global timeline.
type Second struct {
	T      int64   `json:"t"`      // Unix seconds
	OK     uint64  `json:"ok"`     // successful calls ended in it (the throughput, calls/s)
	Failed uint64  `json:"failed"` // failed calls ended in it (cancelled ones are not counted)
	Load   float64 `json:"load"`   // mean calls in flight (offered load)
	Active int     `json:"active"` // testers running when it was last seen
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
	Final  bool    `json:"final"` // no longer provisional
	// The testers' self-health over the second (Run.Health; NaN/0 until
	// a tester reports it): the highest CPU share of any tester (% of
	// the CPU it may use), the busiest host, the latest schedule (largest
	// lag, ms), the most open descriptors of any tester.
	TesterCPUPct float64 `json:"tester_cpu_pct"`
	HostBusyPct  float64 `json:"host_busy_pct"`
	LagMaxMs     float64 `json:"lag_max_ms"`
	FDs          int     `json:"fds"`
	// HealthN counts the testers' reports folded into the second, HostN
	// those of them that showed their host's busy share: where they are
	// 0, the figures above are unknown, not 0.
	HealthN int `json:"health_n,omitempty"`
	HostN   int `json:"host_n,omitempty"`

	rt stats.Bucket // its calls, load and response times; the histogram while not final
}

// Tester states as the dashboard shows them.
const (
	StateLaunched = "launched" // started by the testbed, not joined yet
	StateJoined   = "joined"   // admitted by the controller
	StateRunning  = "running"  // client loop running
	StateDone     = "done"     // finished normally
	StateFailed   = "failed"   // died, lost, or never joined
)

// Tester is one tester's row of the dashboard's table.
type Tester struct {
	Index      int     `json:"index"`
	ID         string  `json:"id"`
	Host       string  `json:"host"`
	State      string  `json:"state"`
	Detail     string  `json:"detail,omitempty"` // why it failed or stopped
	OK         uint64  `json:"ok"`
	Failed     uint64  `json:"failed"`
	MeanMs     float64 `json:"mean_ms"`
	OffsetMs   float64 `json:"offset_ms"` // clock offset at its last sync
	BoundMs    float64 `json:"bound_ms"`  // error bound of that offset
	Syncs      int     `json:"syncs"`
	LastSeenNs int64   `json:"last_seen_ns"`
	ChangedNs  int64   `json:"changed_ns"` // when its state last changed
	Received   uint64  `json:"received"`
	Produced   uint64  `json:"produced"`
	// Health is its latest self-health report (Run.Health); nil until
	// it sends one.
	Health *TesterHealth `json:"health,omitempty"`

	rt stats.Bucket // its response times (no histogram)
}

// TesterHealth is one tester's self-health over its latest reported
// second (sample.Health); a figure the tester could not measure is null.
type TesterHealth struct {
	T           int64    `json:"t"`             // the second, Unix s
	CPUPct      *float64 `json:"cpu_pct"`       // its process tree's CPU, % of the CPU it may use
	HostBusyPct *float64 `json:"host_busy_pct"` // its host's busy share, %
	LagMaxMs    *float64 `json:"lag_max_ms"`    // the latest start behind schedule, ms
	Starts      int      `json:"starts"`        // calls started in the second
	FDs         int      `json:"fds"`           // open descriptors
	FDLimit     int      `json:"fd_limit"`      // its descriptor limit
}

// ErrorClass is the count of one class of failed calls and its latest
// messages.
type ErrorClass struct {
	Class  string   `json:"class"`
	Count  uint64   `json:"count"`
	Recent []string `json:"recent"` // latest distinct messages, newest first
}

// recentErrors is how many messages an error class keeps.
const recentErrors = 5

// errClass accumulates one ErrorClass.
type errClass struct {
	count  uint64
	recent []string
}

// add counts one failure with message msg from tester idx.
func (e *errClass) add(msg string) {
	e.count++
	if msg == "" {
		return
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	for i, m := range e.recent {
		if m == msg {
			copy(e.recent[1:i+1], e.recent[:i])
			e.recent[0] = msg
			return
		}
	}
	if len(e.recent) < recentErrors {
		e.recent = append(e.recent, "")
	}
	copy(e.recent[1:], e.recent)
	e.recent[0] = msg
}
