package verify

import (
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"text/tabwriter"

	"github.com/diperf/diperf/internal/rundir"
)

// Report is what Check found in a run directory and, with fix, what
// it dropped. It serializes to JSON.
type Report struct {
	Dir         string                    `json:"dir"`
	RowsRead    int64                     `json:"rows_read"`    // rows in samples.parquet as found
	RowsBad     int64                     `json:"rows_bad"`     // rows a fix drops
	RowsKept    int64                     `json:"rows_kept"`    // rows in samples.parquet afterwards
	TestersSeen int                       `json:"testers_seen"` // distinct tester indices with samples
	Fixed       bool                      `json:"fixed"`        // samples.parquet was rewritten
	Problems    map[Problem]*ProblemCount `json:"problems"`     // every class, found or not

	wouldDrop map[Problem]int64 // per class, the rows a fix drops
}

// ProblemCount is what Check found of one problem class. Count is in rows,
// except for missing_clock (testers) and seq_gap (missing numbers); a row
// with several problems counts under each. Dropped is set only by a fix,
// and counts each dropped row under its first class in report order.
type ProblemCount struct {
	Count    int64     `json:"count"`
	Dropped  int64     `json:"dropped"`
	Examples []Example `json:"examples"`
}

// Example is one instance of a problem. For missing_clock Seq is 0;
// for seq_gap it is the first missing number.
type Example struct {
	Tester int32  `json:"tester"`
	Seq    int64  `json:"seq"`
	What   string `json:"what"`
}

// OK reports whether Check found no problem other than seq gaps.
func (r *Report) OK() bool {
	for p, pc := range r.Problems {
		if p != ProblemSeqGap && pc.Count > 0 {
			return false
		}
	}
	return true
}

// Format writes the report as a human table: a summary line, one line per
// problem class with its count and the rows dropped, then the examples.
func (r *Report) Format(w io.Writer) error {
	sw := &stickyWriter{w: w}
	tw := tabwriter.NewWriter(sw, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s: %d rows read, %d bad, %d kept, %d testers seen\n",
		filepath.Join(r.Dir, rundir.Samples), r.RowsRead, r.RowsBad, r.RowsKept, r.TestersSeen)
	fmt.Fprintf(tw, "problem\tcount\tdropped\n")
	for _, p := range reportOrder {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", p, r.Problems[p].Count, r.droppedCell(p))
	}
	r.formatExamples(tw)
	fmt.Fprintln(tw, r.verdict())
	if err := tw.Flush(); err != nil {
		return err
	}
	return sw.err
}

// droppedCell is the dropped column of class p: "-" for the classes a fix
// never drops, and for all of them when nothing was fixed.
func (r *Report) droppedCell(p Problem) string {
	if !r.Fixed || p == ProblemMissingClock || p == ProblemSeqGap {
		return "-"
	}
	return fmt.Sprint(r.Problems[p].Dropped)
}

// formatExamples writes the examples of every class, if there are any.
func (r *Report) formatExamples(w io.Writer) {
	header := false
	for _, p := range reportOrder {
		for _, ex := range r.Problems[p].Examples {
			if !header {
				fmt.Fprintln(w, "examples:")
				header = true
			}
			fmt.Fprintf(w, "  %s\ttester %d\tseq %d\t%s\n", p, ex.Tester, ex.Seq, ex.What)
		}
	}
}

// verdict is the report's last line.
func (r *Report) verdict() string {
	switch {
	case r.OK():
		return "OK (seq gaps, if any, are informational)"
	case r.Fixed:
		return fmt.Sprintf("PROBLEMS: fixed, %d bad rows dropped; original kept as %s", r.RowsBad, rundir.SamplesOrig)
	case r.RowsBad > 0:
		return fmt.Sprintf("PROBLEMS: not fixed; a fix would drop %d bad rows", r.RowsBad)
	}
	return "PROBLEMS: none that a fix drops"
}

// newReport makes an empty report with every class present.
func newReport(dir string) *Report {
	r := &Report{Dir: dir, Problems: map[Problem]*ProblemCount{}, wouldDrop: map[Problem]int64{}}
	for _, p := range reportOrder {
		r.Problems[p] = &ProblemCount{Examples: []Example{}}
	}
	return r
}

// add counts n of problem p and keeps the example ex makes, if there is
// room for it.
func (r *Report) add(p Problem, n int64, ex func() Example) {
	pc := r.Problems[p]
	pc.Count += n
	if len(pc.Examples) < maxExamples {
		pc.Examples = append(pc.Examples, ex())
	}
}

// addRow counts one row read and the problems m that c found in it.
func (r *Report) addRow(c *checker, row *rundir.Row, m rowMask) {
	r.RowsRead++
	if m == 0 {
		return
	}
	r.RowsBad++
	r.wouldDrop[rowClasses[bits.TrailingZeros8(uint8(m))]]++
	for i, p := range rowClasses {
		if m&(1<<i) != 0 {
			r.add(p, 1, func() Example {
				return Example{Tester: row.Tester, Seq: row.Seq, What: c.describe(p, row)}
			})
		}
	}
}

// stickyWriter remembers the first error of the writer it wraps and
// writes nothing after it.
type stickyWriter struct {
	w   io.Writer
	err error
}

// Write writes p unless an earlier write failed.
func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}
