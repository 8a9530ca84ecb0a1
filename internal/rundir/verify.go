package rundir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/sample"
)

// SamplesOrig is where Verify with fix keeps the original samples.parquet.
const SamplesOrig = Samples + ".orig"

// Problem names a class of problem that Verify looks for in the raw data
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
	// launch or ends well after its stop (see verifyStopSlack).
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

// verifyOrder lists the problem classes in report order.
var verifyOrder = []Problem{ProblemEndBeforeStart, ProblemDuplicate, ProblemUnknownTester,
	ProblemOutsideLifetime, ProblemMissingClock, ProblemBadStatus, ProblemSeqGap}

// verifyMask holds the problems of one row, bit i for verifyRowClasses[i].
type verifyMask uint8

// Bits of verifyMask.
const (
	maskEndBeforeStart verifyMask = 1 << iota
	maskDuplicate
	maskUnknownTester
	maskOutsideLifetime
	maskBadStatus
)

// verifyRowClasses are the classes found in single rows, all of which a fix
// drops, in report order: a row with several problems is counted under
// each, and its drop under the first.
var verifyRowClasses = [...]Problem{ProblemEndBeforeStart, ProblemDuplicate, ProblemUnknownTester,
	ProblemOutsideLifetime, ProblemBadStatus}

// verifyStopSlack is how long after its tester's stop_ns a sample may still
// end. The stop is when the controller saw the tester stop, but calls in
// flight at that moment run on until they finish or hit the client
// timeout, and their samples are still flushed; a sample's global time also
// carries the error of the clock mapping. A minute covers usual client
// timeouts and clock errors without reading the experiment's own timeout.
const verifyStopSlack = int64(time.Minute)

// verifyMaxExamples is how many examples a report keeps per class.
const verifyMaxExamples = 10

// VerifyReport is what Verify found in a run directory and, with fix, what
// it dropped. It serializes to JSON.
type VerifyReport struct {
	Dir         string                    `json:"dir"`
	RowsRead    int64                     `json:"rows_read"`    // rows in samples.parquet as found
	RowsBad     int64                     `json:"rows_bad"`     // rows a fix drops
	RowsKept    int64                     `json:"rows_kept"`    // rows in samples.parquet afterwards
	TestersSeen int                       `json:"testers_seen"` // distinct tester indices with samples
	Fixed       bool                      `json:"fixed"`        // samples.parquet was rewritten
	Problems    map[Problem]*ProblemCount `json:"problems"`     // every class, found or not

	wouldDrop map[Problem]int64 // per class, the rows a fix drops
}

// ProblemCount is what Verify found of one problem class. Count is in rows,
// except for missing_clock (testers) and seq_gap (missing numbers); a row
// with several problems counts under each. Dropped is set only by a fix,
// and counts each dropped row under its first class in report order.
type ProblemCount struct {
	Count    int64           `json:"count"`
	Dropped  int64           `json:"dropped"`
	Examples []VerifyExample `json:"examples"`
}

// VerifyExample is one instance of a problem. For missing_clock Seq is 0;
// for seq_gap it is the first missing number.
type VerifyExample struct {
	Tester int32  `json:"tester"`
	Seq    int64  `json:"seq"`
	What   string `json:"what"`
}

// Verify checks the raw data of run directory dir: samples.parquet
// (streamed in chunks, keeping only per-tester state), testers.csv and
// syncs.csv. With fix, when there are bad rows, it first copies
// samples.parquet to samples.parquet.orig (unless that exists already, from
// an earlier fix) and then rewrites samples.parquet without them. If the
// fix fails, the report of the check comes back with the error.
func Verify(dir string, fix bool) (*VerifyReport, error) {
	testers, err := ReadTesters(dir)
	if err != nil {
		return nil, err
	}
	r := newVerifyReport(dir)
	c := newVerifyChecker(testers)
	err = verifyScan(filepath.Join(dir, Samples), func(rows []Row) error {
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

// OK reports whether Verify found no problem other than seq gaps.
func (r *VerifyReport) OK() bool {
	for p, pc := range r.Problems {
		if p != ProblemSeqGap && pc.Count > 0 {
			return false
		}
	}
	return true
}

// Format writes the report as a human table: a summary line, one line per
// problem class with its count and the rows dropped, then the examples.
func (r *VerifyReport) Format(w io.Writer) error {
	sw := &verifyStickyWriter{w: w}
	tw := tabwriter.NewWriter(sw, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s: %d rows read, %d bad, %d kept, %d testers seen\n",
		filepath.Join(r.Dir, Samples), r.RowsRead, r.RowsBad, r.RowsKept, r.TestersSeen)
	fmt.Fprintf(tw, "problem\tcount\tdropped\n")
	for _, p := range verifyOrder {
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
func (r *VerifyReport) droppedCell(p Problem) string {
	if !r.Fixed || p == ProblemMissingClock || p == ProblemSeqGap {
		return "-"
	}
	return fmt.Sprint(r.Problems[p].Dropped)
}

// formatExamples writes the examples of every class, if there are any.
func (r *VerifyReport) formatExamples(w io.Writer) {
	header := false
	for _, p := range verifyOrder {
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
func (r *VerifyReport) verdict() string {
	switch {
	case r.OK():
		return "OK (seq gaps, if any, are informational)"
	case r.Fixed:
		return fmt.Sprintf("PROBLEMS: fixed, %d bad rows dropped; original kept as %s", r.RowsBad, SamplesOrig)
	case r.RowsBad > 0:
		return fmt.Sprintf("PROBLEMS: not fixed; a fix would drop %d bad rows", r.RowsBad)
	}
	return "PROBLEMS: none that a fix drops"
}

// newVerifyReport makes an empty report with every class present.
func newVerifyReport(dir string) *VerifyReport {
	r := &VerifyReport{Dir: dir, Problems: map[Problem]*ProblemCount{}, wouldDrop: map[Problem]int64{}}
	for _, p := range verifyOrder {
		r.Problems[p] = &ProblemCount{Examples: []VerifyExample{}}
	}
	return r
}

// add counts n of problem p and keeps the example ex makes, if there is
// room for it.
func (r *VerifyReport) add(p Problem, n int64, ex func() VerifyExample) {
	pc := r.Problems[p]
	pc.Count += n
	if len(pc.Examples) < verifyMaxExamples {
		pc.Examples = append(pc.Examples, ex())
	}
}

// addRow counts one row read and the problems m that c found in it.
func (r *VerifyReport) addRow(c *verifyChecker, row *Row, m verifyMask) {
	r.RowsRead++
	if m == 0 {
		return
	}
	r.RowsBad++
	r.wouldDrop[verifyRowClasses[bits.TrailingZeros8(uint8(m))]]++
	for i, p := range verifyRowClasses {
		if m&(1<<i) != 0 {
			r.add(p, 1, func() VerifyExample {
				return VerifyExample{Tester: row.Tester, Seq: row.Seq, What: c.describe(p, row)}
			})
		}
	}
}

// fix keeps the original samples.parquet and rewrites it without the bad
// rows, then records what it dropped.
func (r *VerifyReport) fix(testers []*TesterRecord) error {
	if err := verifyKeepOriginal(r.Dir); err != nil {
		return err
	}
	want := r.RowsRead - r.RowsBad
	if err := verifyRewrite(r.Dir, testers, want); err != nil {
		return err
	}
	r.Fixed, r.RowsKept = true, want
	for p, n := range r.wouldDrop {
		r.Problems[p].Dropped = n
	}
	return nil
}

// verifyTester is the state Verify keeps per tester of testers.csv.
type verifyTester struct {
	rec      *TesterRecord
	seen     seqSet
	rows     int64 // samples seen
	maxSeq   int64 // largest seq seen
	distinct int64 // distinct seqs from 1 up seen
}

// add records a sample's seq and reports whether it is new.
func (t *verifyTester) add(seq int64) bool {
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
func (t *verifyTester) missing() int64 { return t.maxSeq - t.distinct }

// verifyChecker finds the problems of rows, in file order.
type verifyChecker struct {
	testers map[int32]*verifyTester
	order   []*verifyTester    // as in testers.csv
	unknown map[int32]struct{} // tester indices not in testers.csv
}

// newVerifyChecker makes a checker for the testers of testers.csv.
func newVerifyChecker(testers []*TesterRecord) *verifyChecker {
	c := &verifyChecker{testers: map[int32]*verifyTester{}, unknown: map[int32]struct{}{}}
	for _, rec := range testers {
		t := &verifyTester{rec: rec}
		c.testers[int32(rec.Slot)] = t
		c.order = append(c.order, t)
	}
	return c
}

// check returns the problems of the next row. Rows of unknown testers get
// no per-tester checks (duplicates, lifetime, gaps).
func (c *verifyChecker) check(row *Row) verifyMask {
	var m verifyMask
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
// ends more than verifyStopSlack after its stop (when the stop is known).
func outsideLifetime(t *TesterRecord, row *Row) bool {
	return row.StartNs < t.LaunchNs || (t.StopNs != 0 && row.EndNs > t.StopNs+verifyStopSlack)
}

// describe says in a few words what problem p of row is.
func (c *verifyChecker) describe(p Problem, row *Row) string {
	switch p {
	case ProblemEndBeforeStart:
		return fmt.Sprintf("ends %v before it starts", time.Duration(row.StartNs-row.EndNs))
	case ProblemDuplicate:
		return "same tester and seq as an earlier row"
	case ProblemUnknownTester:
		return fmt.Sprintf("tester %d is not in %s", row.Tester, Testers)
	case ProblemOutsideLifetime:
		return c.describeLifetime(row)
	case ProblemBadStatus:
		return fmt.Sprintf("status %q", row.Status)
	}
	return string(p)
}

// describeLifetime says how far row is outside its tester's lifetime.
func (c *verifyChecker) describeLifetime(row *Row) string {
	t := c.testers[row.Tester].rec
	if row.StartNs < t.LaunchNs {
		return fmt.Sprintf("starts %v before its tester's launch", time.Duration(t.LaunchNs-row.StartNs))
	}
	return fmt.Sprintf("ends %v after its tester's stop (allowed: %v)",
		time.Duration(row.EndNs-t.StopNs), time.Duration(verifyStopSlack))
}

// finish adds the per-tester findings, once every row has been checked.
func (c *verifyChecker) finish(r *VerifyReport) {
	r.TestersSeen = len(c.unknown)
	for _, t := range c.order {
		if t.rows == 0 {
			continue
		}
		r.TestersSeen++
		slot := int32(t.rec.Slot)
		if len(t.rec.Syncs) == 0 {
			r.add(ProblemMissingClock, 1, func() VerifyExample {
				return VerifyExample{Tester: slot, What: fmt.Sprintf("no sync record in %s for its %d samples", Syncs, t.rows)}
			})
		}
		if n := t.missing(); n > 0 {
			r.add(ProblemSeqGap, n, func() VerifyExample {
				return VerifyExample{Tester: slot, Seq: int64(t.seen.firstMissing()),
					What: fmt.Sprintf("%d of seqs 1..%d missing (seq: the first)", n, t.maxSeq)}
			})
		}
	}
}

// Pages of seqSet.
const (
	seqPageBits  = 1 << 15
	seqPageWords = seqPageBits / 64
)

// seqSet is a set of sequence numbers: a bitmap in pages allocated only
// where numbers fall, so that a stray huge seq costs one page.
type seqSet struct {
	pages map[uint64]*[seqPageWords]uint64
}

// add puts seq in the set and reports whether it was not there yet.
func (s *seqSet) add(seq uint64) bool {
	if s.pages == nil {
		s.pages = map[uint64]*[seqPageWords]uint64{}
	}
	page := s.pages[seq/seqPageBits]
	if page == nil {
		page = new([seqPageWords]uint64)
		s.pages[seq/seqPageBits] = page
	}
	word, bit := seq%seqPageBits/64, uint64(1)<<(seq%64)
	if page[word]&bit != 0 {
		return false
	}
	page[word] |= bit
	return true
}

// firstMissing returns the smallest number from 1 up not in the set.
func (s *seqSet) firstMissing() uint64 {
	for p := uint64(0); ; p++ {
		page := s.pages[p]
		if page == nil {
			return max(p*seqPageBits, 1)
		}
		for i, w := range page {
			if p == 0 && i == 0 {
				w |= 1 // 0 is no sequence number
			}
			if w != ^uint64(0) {
				return p*seqPageBits + uint64(i)*64 + uint64(bits.TrailingZeros64(^w))
			}
		}
	}
}

// verifyScan reads the samples file at path in chunks of rowChunk rows and
// hands each chunk to fn; the chunk is reused once fn returns.
func verifyScan(path string, fn func(rows []Row) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r := parquet.NewGenericReader[Row](pf)
	defer r.Close()
	buf := make([]Row, rowChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if ferr := fn(buf[:n]); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// verifyRewrite rewrites samples.parquet without the rows a fix drops,
// checking them afresh, with the writer options of WriteSamples. It fails,
// leaving the file as it was, unless it keeps exactly want rows.
func verifyRewrite(dir string, testers []*TesterRecord, want int64) error {
	path := filepath.Join(dir, Samples)
	return writeAtomic(path, func(f *os.File) error {
		w := parquet.NewGenericWriter[Row](f, writerOptions()...)
		c := newVerifyChecker(testers)
		keep := make([]Row, 0, rowChunk)
		var kept int64
		err := verifyScan(path, func(rows []Row) error {
			keep = keep[:0]
			for i := range rows {
				if c.check(&rows[i]) == 0 {
					keep = append(keep, rows[i])
				}
			}
			kept += int64(len(keep))
			_, err := w.Write(keep)
			return err
		})
		if err != nil {
			return err
		}
		if kept != want {
			return fmt.Errorf("%s changed while being verified: %d rows to keep, expected %d", path, kept, want)
		}
		return w.Close()
	})
}

// verifyKeepOriginal copies samples.parquet to samples.parquet.orig unless
// that exists already (from an earlier fix, whose original it keeps).
func verifyKeepOriginal(dir string) error {
	src, dst := filepath.Join(dir, Samples), filepath.Join(dir, SamplesOrig)
	if _, err := os.Lstat(dst); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return writeAtomic(dst, func(f *os.File) error {
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		_, err = io.Copy(f, in)
		return err
	})
}

// verifyStickyWriter remembers the first error of the writer it wraps and
// writes nothing after it.
type verifyStickyWriter struct {
	w   io.Writer
	err error
}

// Write writes p unless an earlier write failed.
func (s *verifyStickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}
