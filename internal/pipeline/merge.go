package pipeline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// MergedEvent is the events.jsonl event of a merge of the testers' own
// spools into a run's files (mergeSpools).
const MergedEvent = "spools-merged"

// testerSpools are the testers' own spools of a run directory, read as
// one SampleSource: each batch of a tester the run knows, from the spool
// its name says is that tester's (another tester's batch there is
// skipped), its produced count noted. A tester numbers its samples 1, 2,
// ... and writes each to its spool before it sends it, with the count it
// produced so far: a sample numbered 0 or past its batch's count cannot
// be, and is skipped; a batch left with no sample says nothing.
type testerSpools struct {
	paths    []string
	known    map[int]bool
	produced map[int]uint64 // the largest count each tester said it produced
	skipped  uint64         // samples of testers the run does not know, or in another's spool
	bad      map[string]error
}

// newTesterSpools reads the spools at paths for the testers recs; a spool
// a tester still writes (locked) is left out.
func newTesterSpools(paths []string, recs []*rundir.TesterRecord) *testerSpools {
	ts := &testerSpools{known: map[int]bool{}, produced: map[int]uint64{}, bad: map[string]error{}}
	for _, t := range recs {
		ts.known[t.Slot] = true
	}
	for _, p := range paths {
		f, err := rundir.LockSpool(p)
		if err != nil {
			ts.bad[p] = err
			continue
		}
		f.Close()
		ts.paths = append(ts.paths, p)
	}
	return ts
}

// each is the spools as a rundir.SampleSource. A spool unreadable past
// some byte gives what comes before it; the error is kept in ts.bad.
func (ts *testerSpools) each(visit func(slot int, b *protocol.Batch) error) error {
	ts.skipped = 0
	for _, p := range ts.paths {
		own, named := rundir.SpoolSlot(p)
		var verr error
		err := rundir.ReadSpool(p, rundir.SpoolVisitor{Batch: func(slot int, b *protocol.Batch) error {
			if !ts.known[slot] || named && slot != own {
				ts.skipped += uint64(len(b.Samples))
				return nil
			}
			b = ts.valid(slot, b)
			verr = visit(slot, b)
			return verr
		}})
		if verr != nil {
			return verr
		}
		if err != nil {
			ts.bad[p] = err
		}
	}
	return nil
}

// valid returns b without its samples numbered 0 or past its produced
// count (counted skipped); the count is noted as what tester slot said
// it produced when a sample is left.
func (ts *testerSpools) valid(slot int, b *protocol.Batch) *protocol.Batch {
	keep := b.Samples[:0:0]
	for _, s := range b.Samples {
		if s.Seq == 0 || s.Seq > b.Produced {
			ts.skipped++
			continue
		}
		keep = append(keep, s)
	}
	if len(keep) > 0 {
		ts.produced[slot] = max(ts.produced[slot], b.Produced)
	}
	if len(keep) == len(b.Samples) {
		return b
	}
	return &protocol.Batch{Produced: b.Produced, Samples: keep}
}

// Merge is what mergeSpools added to a run.
type Merge struct {
	Spools  int    // testers' spools read
	Samples uint64 // samples that were in no file of the run yet
}

// mergeSpools adds to dir's raw files what the testers' own spools
// (logs/*.spool: the local testbed's, or fetched from ssh hosts by
// `diperf fetch`) hold that they lack: every sample not in samples.parquet
// by (tester, client, seq), and each tester's produced count, the
// largest it said. A tester's received count becomes the rows it has in
// samples.parquet (what is stored), so its lost count is produced −
// stored. The spools read whole are then removed; one that could not be
// read (or is still written) stays and is named on progress. nil, nil
// when there is no spool.
func mergeSpools(dir string, progress io.Writer) (*Merge, error) {
	paths, err := rundir.TesterSpools(dir)
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil {
		return nil, err
	}
	ts := newTesterSpools(paths, recs)
	stored, fresh, err := rundir.CountMerge(dir, ts.each)
	if err != nil {
		return nil, fmt.Errorf("merging the testers' spools: %w", err)
	}
	m := &Merge{Spools: len(ts.paths)}
	for _, n := range fresh {
		m.Samples += n
	}
	if m.Samples > 0 {
		if stored, err = rundir.MergeSamples(dir, recs, ts.each); err != nil {
			return nil, err
		}
	}
	if changed := settleCounts(recs, stored, ts.produced); changed || m.Samples > 0 {
		if err := writeMerged(dir, recs, m, ts); err != nil {
			return nil, err
		}
	}
	sayMerged(progress, m, ts)
	return m, removeRead(ts)
}

// settleCounts makes each tester of a spool's received count its rows in
// samples.parquet, and its sent count the largest it said it produced;
// it reports whether a count changed.
func settleCounts(recs []*rundir.TesterRecord, stored, produced map[int]uint64) bool {
	changed := false
	for _, t := range recs {
		p, ok := produced[t.Slot]
		if !ok {
			continue
		}
		recv, sent := max(t.Received, stored[t.Slot]), max(t.Sent, p)
		changed = changed || recv != t.Received || sent != t.Sent
		t.Received, t.Sent = recv, max(sent, recv)
	}
	return changed
}

// writeMerged says the merge in events.jsonl, then writes the tester files.
func writeMerged(dir string, recs []*rundir.TesterRecord, m *Merge, ts *testerSpools) error {
	ev, err := rundir.CreateEventLog(dir)
	if err != nil {
		return err
	}
	ev.Add(MergedEvent, -1, "", m.String(ts))
	if err := ev.Close(); err != nil {
		return err
	}
	return rundir.WriteTesters(dir, recs)
}

// String says what the merge did.
func (m *Merge) String(ts *testerSpools) string {
	s := fmt.Sprintf("merged %d samples from %d testers' own spools (%s) that the run's files lacked", m.Samples, m.Spools,
		filepath.Join(rundir.LogDir, "*"+rundir.SpoolExt))
	if ts.skipped > 0 {
		s += fmt.Sprintf("; %d samples of testers the run does not know, in another tester's spool, or numbered past what their tester said it produced, left out", ts.skipped)
	}
	return s
}

// sayMerged says on progress what the merge did and which spools stay.
func sayMerged(progress io.Writer, m *Merge, ts *testerSpools) {
	if progress == nil {
		return
	}
	if m.Samples > 0 || ts.skipped > 0 {
		fmt.Fprintln(progress, m.String(ts))
	}
	for p, err := range ts.bad {
		fmt.Fprintf(progress, "kept %s: %v\n", p, err)
	}
}

// removeRead removes the spools read whole: what they hold is in the
// run's files now.
func removeRead(ts *testerSpools) error {
	var errs []string
	for _, p := range ts.paths {
		if _, bad := ts.bad[p]; bad {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("removing merged spools: %s", strings.Join(errs, "; "))
	}
	return nil
}
