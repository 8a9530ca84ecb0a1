package netprobe

import "fmt"

// String says what the server served and refused, for a person (a log
// line), every counter named.
func (s Stats) String() string {
	return fmt.Sprintf("served %d bandwidth and %d latency tests; refused %d busy, %d unproved or malformed, %d over budget; cut %d short",
		s.BandwidthServed, s.LatencyServed, s.Busy, s.Refused, s.OverBudget, s.Cut)
}
