package verify

import (
	"time"
)

// Problem names a class of problem that Check looks for in the raw data
// of a run directory.
type Problem string

// Problem classes, in the order in which reports list them.
const (
	// ProblemEndBeforeStart is a sample whose end_ns is before its start_ns.
	ProblemEndBeforeStart Problem = "end_before_start"
	// ProblemDuplicate is a sample with the same (tester, seq) as an
	// earlier one; a fix keeps the first.
	ProblemDuplicate Problem = "duplicate"
	// ProblemUnknownTester is a sample of a tester index not in testers.csv.
	ProblemUnknownTester Problem = "unknown_tester"
	// ProblemOutsideLifetime is a sample that starts before its tester's
	// launch or ends well after its stop (see stopSlack).
	ProblemOutsideLifetime Problem = "outside_lifetime"
	// ProblemMissingClock is a tester with samples but no sync record; its
	// samples are kept (placed with offset 0). Counted per tester.
	ProblemMissingClock Problem = "missing_clock"
	// ProblemBadStatus is a sample whose status sample.ParseStatus rejects.
	ProblemBadStatus Problem = "bad_status"
	// ProblemSeqGap is informational: sequence numbers missing between 1
	// and a tester's largest, samples lost in transit or cut by a crash.
	// Counted per missing number; never fixed.
	ProblemSeqGap Problem = "seq_gap"
)

// reportOrder lists the problem classes in report order.
var reportOrder = []Problem{ProblemEndBeforeStart, ProblemDuplicate, ProblemUnknownTester,
	ProblemOutsideLifetime, ProblemMissingClock, ProblemBadStatus, ProblemSeqGap}

// rowMask holds the problems of one row, bit i for rowClasses[i].
type rowMask uint8

// Bits of rowMask.
const (
	maskEndBeforeStart rowMask = 1 << iota
	maskDuplicate
	maskUnknownTester
	maskOutsideLifetime
	maskBadStatus
)

// rowClasses are the classes found in single rows, all of which a fix
// drops, in report order: a row with several problems is counted under
// each, and its drop under the first.
var rowClasses = [...]Problem{ProblemEndBeforeStart, ProblemDuplicate, ProblemUnknownTester,
	ProblemOutsideLifetime, ProblemBadStatus}

// stopSlack is how long after its tester's stop_ns a sample may still
// end. The stop is when the controller saw the tester stop, but calls in
// flight at that moment run on until they finish or hit the client
// timeout, and their samples are still flushed; a sample's global time also
// carries the error of the clock mapping. A minute covers usual client
// timeouts and clock errors without reading the experiment's own timeout.
const stopSlack = int64(time.Minute)

// maxExamples is how many examples a report keeps per class.
const maxExamples = 10
