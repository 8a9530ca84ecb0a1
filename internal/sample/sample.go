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
	numStatus
)

var statusNames = [...]string{"ok", "failed", "timeout", "failed_to_start", "cancelled"}

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
}
