package directory

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// States of an on-demand test (a probe).
const (
	ProbePending = "pending" // requested, not yet claimed by its source sensor
	ProbeRunning = "running" // claimed: the source sensor runs it
	ProbeDone    = "done"    // its result is stored (Probe.Result)
	ProbeFailed  = "failed"  // the source sensor could not run it (Probe.Reason)
	ProbeExpired = "expired" // not claimed, or not answered, in time (Probe.Reason)
)

// Bounds of the probes (docs/design/015-sensor-mesh.md, "On-demand tests").
const (
	// ProbeClaimWithin is how long a probe waits for its source sensor
	// to claim it before it expires (the sensor is gone, or stuck).
	ProbeClaimWithin = 2 * time.Minute
	// ProbeAnswerWithin is how long a claimed probe waits for its answer
	// (the longest test, its busy retries, and slack) before it expires.
	ProbeAnswerWithin = 2 * time.Minute
	// ProbeKept is how long an ended probe can be read back.
	ProbeKept = 10 * time.Minute
	// MaxProbeWait bounds a sensor's long poll for its probes.
	MaxProbeWait = 25 * time.Second
	// MaxPendingProbes is the most probes pending or running at once in
	// the directory, whoever asked.
	MaxPendingProbes = 1000
	// MaxKeptProbes is the most probes the directory holds, ended ones
	// included: past it, the oldest ended ones are forgotten first.
	MaxKeptProbes = 10000
	// DefaultProbesPerMinute is how many probes one requester may ask
	// for in a minute (sliding), DefaultProbesPending how many of its
	// may be pending or running at once.
	DefaultProbesPerMinute = 6
	DefaultProbesPending   = 2
)

// ProbeRequest asks a sensor to test another now (POST /v1/probes).
type ProbeRequest struct {
	Src  string `json:"src"`  // the sensor that runs the test
	Dst  string `json:"dst"`  // the sensor it tests
	Kind string `json:"kind"` // KindBandwidth or KindLatency
}

// Validate checks the names and the kind.
func (p *ProbeRequest) Validate() error { return checkPair(p.Src, p.Dst, p.Kind) }

// Probe is an on-demand test as the directory holds it (GET
// /v1/probes/{id}; a sensor's claim lists its own with DstAddr set).
type Probe struct {
	ID          string    `json:"id"`
	Src         string    `json:"src"`
	Dst         string    `json:"dst"`
	Kind        string    `json:"kind"`
	State       string    `json:"state"`
	Result      *Result   `json:"result,omitempty"` // when done: the result as stored
	Reason      string    `json:"reason,omitempty"` // when failed or expired: why
	RequestedAt time.Time `json:"requested_at"`
	DstAddr     string    `json:"dst_addr,omitempty"` // in a claim: where dst's tests are reached
}

// Ended reports whether the probe is in a final state.
func (p Probe) Ended() bool {
	return p.State == ProbeDone || p.State == ProbeFailed || p.State == ProbeExpired
}

// ProbeAnswer is a sensor's answer to a probe it claimed (POST
// /v1/probes/{id}/answer): its result, or why it did not run it.
type ProbeAnswer struct {
	Result *Result `json:"result,omitempty"`
	Reason string  `json:"reason,omitempty"`
}

// MaxReason bounds a failed probe's reason.
const MaxReason = 1000

// Validate checks that the answer is a valid result or a reason, not both.
func (a *ProbeAnswer) Validate() error {
	switch {
	case (a.Result == nil) == (a.Reason == ""):
		return fieldErr("", "want a result or a reason, one of them")
	case a.Result != nil:
		return a.Result.Validate()
	case len(a.Reason) > MaxReason:
		return fieldErr("reason", "is %d bytes long; at most %d", len(a.Reason), MaxReason)
	}
	for _, r := range a.Reason { // said on a terminal: no control or format character
		if r != ' ' && (r == utf8.RuneError || !unicode.IsPrint(r)) {
			return fieldErr("reason", "holds %U, a control, format or unassigned character", r)
		}
	}
	return nil
}
