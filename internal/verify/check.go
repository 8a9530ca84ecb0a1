// Package verify checks the raw data of a run directory before it is
// analyzed, and with fix drops the rows that cannot be right: calls that
// end before they start, duplicates, samples of unknown testers or outside
// their tester's lifetime, unknown status classes; testers without clock
// records and gaps in sequence numbers are reported. `diperf analyze
// --verify [--fix]` runs it.
package verify

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// Check checks the raw data of run directory dir: samples.parquet
// (streamed in chunks, keeping only per-tester state), testers.csv and
// syncs.csv. With fix, when there are bad rows, it first copies
// samples.parquet to samples.parquet.orig (unless that exists already, from
// an earlier fix) and then rewrites samples.parquet without them. If the
// fix fails, the report of the check comes back with the error.
func Check(dir string, fix bool) (*Report, error) {
	testers, err := rundir.ReadTesters(dir)
	if err != nil {
		return nil, err
	}
	r := newReport(dir)
	c := newChecker(testers)
	err = rundir.ScanRows(dir, rundir.Samples, func(rows []rundir.Row) error {
		for i := range rows {
			r.addRow(c, &rows[i], c.check(&rows[i]))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.finish(r)
	r.RowsKept = r.RowsRead
	if fix && r.RowsBad > 0 {
		if err := r.fix(testers); err != nil {
			return r, err
		}
	}
	return r, nil
}

// testerState is the state Check keeps per tester of testers.csv.
type testerState struct {
	rec      *rundir.TesterRecord
	seen     seqSet
	rows     int64 // samples seen
	maxSeq   int64 // largest seq seen
	distinct int64 // distinct seqs from 1 up seen
}

// add records a sample's seq and reports whether it is new.
func (t *testerState) add(seq int64) bool {
	t.rows++
	if !t.seen.add(uint64(seq)) {
		return false
	}
	if seq >= 1 {
		t.distinct++
		t.maxSeq = max(t.maxSeq, seq)
	}
	return true
}

// missing is how many numbers in 1..maxSeq were never seen.
func (t *testerState) missing() int64 { return t.maxSeq - t.distinct }

// checker finds the problems of rows, in file order.
type checker struct {
	testers map[int32]*testerState
	order   []*testerState     // as in testers.csv
	unknown map[int32]struct{} // tester indices not in testers.csv
}

// newChecker makes a checker for the testers of testers.csv.
func newChecker(testers []*rundir.TesterRecord) *checker {
	c := &checker{testers: map[int32]*testerState{}, unknown: map[int32]struct{}{}}
	for _, rec := range testers {
		t := &testerState{rec: rec}
		c.testers[int32(rec.Slot)] = t
		c.order = append(c.order, t)
	}
	return c
}

// check returns the problems of the next row. Rows of unknown testers get
// no per-tester checks (duplicates, lifetime, gaps).
func (c *checker) check(row *rundir.Row) rowMask {
	var m rowMask
	if row.EndNs < row.StartNs {
		m |= maskEndBeforeStart
	}
	if _, err := sample.ParseStatus(row.Status); err != nil {
		m |= maskBadStatus
	}
	t := c.testers[row.Tester]
	if t == nil {
		c.unknown[row.Tester] = struct{}{}
		return m | maskUnknownTester
	}
	if !t.add(row.Seq) {
		m |= maskDuplicate
	}
	if outsideLifetime(t.rec, row) {
		m |= maskOutsideLifetime
	}
	return m
}

// outsideLifetime reports whether row starts before its tester's launch or
// ends more than stopSlack after its stop (when the stop is known).
func outsideLifetime(t *rundir.TesterRecord, row *rundir.Row) bool {
	return row.StartNs < t.LaunchNs || (t.StopNs != 0 && row.EndNs > t.StopNs+stopSlack)
}

// describe says in a few words what problem p of row is.
func (c *checker) describe(p Problem, row *rundir.Row) string {
	switch p {
	case ProblemEndBeforeStart:
		return fmt.Sprintf("ends %v before it starts", time.Duration(row.StartNs-row.EndNs))
	case ProblemDuplicate:
		return "same tester and seq as an earlier row"
	case ProblemUnknownTester:
		return fmt.Sprintf("tester %d is not in %s", row.Tester, rundir.Testers)
	case ProblemOutsideLifetime:
		return c.describeLifetime(row)
	case ProblemBadStatus:
		return fmt.Sprintf("status %q", row.Status)
	}
	return string(p)
}

// describeLifetime says how far row is outside its tester's lifetime.
func (c *checker) describeLifetime(row *rundir.Row) string {
	t := c.testers[row.Tester].rec
	if row.StartNs < t.LaunchNs {
		return fmt.Sprintf("starts %v before its tester's launch", time.Duration(t.LaunchNs-row.StartNs))
	}
	return fmt.Sprintf("ends %v after its tester's stop (allowed: %v)",
		time.Duration(row.EndNs-t.StopNs), time.Duration(stopSlack))
}

// finish adds the per-tester findings, once every row has been checked.
func (c *checker) finish(r *Report) {
	r.TestersSeen = len(c.unknown)
	for _, t := range c.order {
		if t.rows == 0 {
			continue
		}
		r.TestersSeen++
		slot := int32(t.rec.Slot)
		if len(t.rec.Syncs) == 0 {
			r.add(ProblemMissingClock, 1, func() Example {
				return Example{Tester: slot, What: fmt.Sprintf("no sync record in %s for its %d samples", rundir.Syncs, t.rows)}
			})
		}
		if n := t.missing(); n > 0 {
			r.add(ProblemSeqGap, n, func() Example {
				return Example{Tester: slot, Seq: int64(t.seen.firstMissing()),
					What: fmt.Sprintf("%d of seqs 1..%d missing (seq: the first)", n, t.maxSeq)}
			})
		}
	}
}

// seqPageBits is how many sequence numbers one word of seqSet holds.
const seqPageBits = 64

// seqSet is a set of sequence numbers: a bitmap kept as a map of its
// words that are not empty, so that its memory follows the rows read
// however their seqs scatter (a page per stray seq, as it had, cost 4 KB
// a row: a tester that sent seqs 32,768 apart could make a check of its
// run's million rows take 4 GB).
type seqSet struct {
	words map[uint64]uint64
}

// add puts seq in the set and reports whether it was not there yet.
func (s *seqSet) add(seq uint64) bool {
	if s.words == nil {
		s.words = map[uint64]uint64{}
	}
	w, bit := seq/seqPageBits, uint64(1)<<(seq%seqPageBits)
	if s.words[w]&bit != 0 {
		return false
	}
	s.words[w] |= bit
	return true
}

// firstMissing returns the smallest number from 1 up not in the set.
func (s *seqSet) firstMissing() uint64 {
	for w := uint64(0); ; w++ {
		word := s.words[w]
		if w == 0 {
			word |= 1 // 0 is no sequence number
		}
		if word != ^uint64(0) {
			return w*seqPageBits + uint64(bits.TrailingZeros64(^word))
		}
	}
}
