package verify

import (
	"fmt"

	"github.com/diperf/diperf/internal/rundir"
)

// fix keeps the original samples.parquet and rewrites it without the bad
// rows, then records what it dropped.
func (r *Report) fix(testers []*rundir.TesterRecord) error {
	// The original of an earlier fix, if any, is kept as it is.
	if _, err := rundir.CopyFile(r.Dir, rundir.Samples, rundir.SamplesOrig); err != nil {
		return err
	}
	want := r.RowsRead - r.RowsBad
	if err := rewrite(r.Dir, testers, want); err != nil {
		return err
	}
	r.Fixed, r.RowsKept = true, want
	for p, n := range r.wouldDrop {
		r.Problems[p].Dropped = n
	}
	return nil
}

// rewrite rewrites samples.parquet without the rows a fix drops, checking
// them afresh. It fails, leaving the file as it was, unless it keeps
// exactly want rows.
func rewrite(dir string, testers []*rundir.TesterRecord, want int64) error {
	return rundir.WriteSampleRows(dir, func(put func([]rundir.Row) error) error {
		c := newChecker(testers)
		keep := make([]rundir.Row, 0, rundir.RowChunk)
		var kept int64
		err := rundir.ScanRows(dir, rundir.Samples, func(rows []rundir.Row) error {
			keep = keep[:0]
			for i := range rows {
				if c.check(&rows[i]) == 0 {
					keep = append(keep, rows[i])
				}
			}
			kept += int64(len(keep))
			return put(keep)
		})
		if err != nil {
			return err
		}
		if kept != want {
			return fmt.Errorf("%s changed while being verified: %d rows to keep, expected %d", rundir.Samples, kept, want)
		}
		return nil
	})
}
