// Package sample defines one timed client call, the record that flows from
// tester to controller to run directory to analyzer.
package sample

import "fmt"

// Status is the class of a client call's outcome.
type Status uint8

// Status classes. The numeric values are part of the wire protocol and the
// spool format: append new classes, never renumber.
const (
	OK            Status = iota // the call succeeded (exit status 0)
	Failed                      // the call ran and failed (non-zero exit, refused, bad reply)
	Timeout                     // the call ran past the timeout and was killed
	FailedToStart               // the client could not be started at all
	Cancelled                   // the tester stopped (end of test, lost controller) mid-call
	// Dropped is an open-model call that was never made: it could not
	// start within the allowed lateness of its intended start (every
	// client busy). Its Start and End are when it was given up.
	Dropped
	// Lost is a datagram call (udp) whose reply never came within the
	// timeout: the request or the reply was lost. Its name is "no_reply"
	// (files written before say "lost", which ParseStatus still reads), so
	// that it is not taken for a sample lost on its way to the controller
	// (summary.json samples.lost_in_transport).
	Lost
	numStatus
)

var statusNames = [...]string{"ok", "failed", "timeout", "failed_to_start", "cancelled", "dropped", "no_reply"}

// oldStatusNames are names files written by earlier versions use for a
// class since renamed.
var oldStatusNames = map[string]Status{"lost": Lost}

// String returns the class name used in files and reports.
func (s Status) String() string {
	if s < numStatus {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// Valid reports whether s is a known class.
func (s Status) Valid() bool { return s < numStatus }

// ParseStatus maps a class name back to its Status.
func ParseStatus(name string) (Status, error) {
	for i, n := range statusNames {
		if n == name {
			return Status(i), nil
		}
	}
	if st, ok := oldStatusNames[name]; ok {
		return st, nil
	}
	return 0, fmt.Errorf("unknown status class %q", name)
}

// Statuses lists every class in numeric order.
func Statuses() []Status {
	out := make([]Status, numStatus)
	for i := range out {
		out[i] = Status(i)
	}
	return out
}

// Phases are the parts of an HTTP call's time, each a duration in ns (0 =
// not measured, e.g. no DNS lookup for an IP address, no connect on a
// reused connection): the lookup, the TCP connect, the TLS handshake, and
// the time from the request's start to the response's first byte.
type Phases struct {
	DNS       int64
	Connect   int64
	TLS       int64
	FirstByte int64
}

// Zero reports whether no phase was measured.
func (p Phases) Zero() bool { return p == Phases{} }

// Extra is one value a client reported for its call (key=value), e.g. the
// bytes of a file transfer or a sub-task's time. Keys are 1..MaxExtraKey
// bytes of [a-z0-9_], starting with a letter.
type Extra struct {
	Key   string
	Value float64
}

// Bounds of the extras of one call.
const (
	MaxExtras   = 16 // most extras per call
	MaxExtraKey = 32 // longest key, bytes
)

// ValidExtraKey reports whether k may name an extra.
func ValidExtraKey(k string) bool {
	if len(k) == 0 || len(k) > MaxExtraKey || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// Sample is one client call as timed by a tester. Start and End are on the
// tester's local clock (nanoseconds, derived from the monotonic clock); the
// controller maps them onto the global timeline with the tester's sync records.
type Sample struct {
	Seq    uint64 // per-tester sequence number, from 1
	Client uint32 // the tester's client loop that made the call, from 0
	Start  int64  // local ns when the call was started
	End    int64  // local ns when the call ended
	Status Status // outcome class
	Bytes  int64  // bytes the client reported moving (0 if unknown)
	Err    string // short error text for non-OK calls
	// Intended is when an open-model call was due to start (local ns; 0
	// in the closed loop, where a call is due when it starts). Response
	// time is then measured from it, so that a stalled service is not
	// hidden by calls that could not start (coordinated omission).
	Intended int64
	Phases   Phases  // HTTP phases, tcp's connect (zero for other clients)
	Extras   []Extra // what the client reported for the call
}

// Lag returns how late an open-model call started (0 in the closed loop).
func (s Sample) Lag() int64 {
	if s.Intended == 0 {
		return 0
	}
	return s.Start - s.Intended
}

// Latency returns the call's response time as a user of the service saw
// it: from its intended start in the open model, else from its start.
func (s Sample) Latency() int64 {
	if s.Intended != 0 {
		return s.End - s.Intended
	}
	return s.End - s.Start
}

// Duration returns the call's response time in nanoseconds.
func (s Sample) Duration() int64 { return s.End - s.Start }

// Call is one client call placed on the global timeline (Unix ns): a
// sample as the analyzer reads it back from the run directory.
type Call struct {
	Tester int32  // tester index (start order)
	Client uint32 // the tester's client loop that made the call, from 0
	Start  int64  // global Unix ns
	End    int64  // global Unix ns
	Status Status // outcome class
	Bytes  int64  // bytes the client reported moving (0 if none)
	// Intended is an open-model call's intended start (global Unix ns; 0
	// in the closed loop).
	Intended int64
	Phases   Phases  // HTTP phases (zero for other clients)
	Extras   []Extra // what the client reported for the call
}
