package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// CutShort is the failure reason of a tester that had not finished when
// its controller stopped, as a recovery writes it into testers.csv.
const CutShort = "run cut short: the controller stopped (recovered from the spool)"

// RecoveredEvent is the events.jsonl event a recovery adds; a run
// directory that has one is incomplete (Summary.Incomplete).
const RecoveredEvent = "recovered"

// Recovery is what Recover rebuilt.
type Recovery struct {
	Samples  uint64 // samples recovered
	Testers  int    // testers the spool knew of
	CutShort int    // of which had not finished: marked failed with CutShort
}

// String is the line a recovery prints.
func (r *Recovery) String() string {
	return fmt.Sprintf("recovered %d samples of %d testers from the spool; the run is incomplete (%d testers cut short)",
		r.Samples, r.Testers, r.CutShort)
}

// Recover rebuilds the raw files of a run whose controller died (killed,
// crashed, or the machine went down) before it wrote them: when dir holds
// samples.spool but lacks testers.csv or samples.parquet, it replays the
// spool into testers.csv, syncs.csv and samples.parquet (the same files,
// row for row, as the controller would have written from the same spool),
// marks the testers that had not finished as failed with CutShort, adds a
// RecoveredEvent to events.jsonl, says what it did on progress (when not
// nil), and removes the spool. It returns nil, nil when there is nothing
// to recover, and an error that says what is missing when the raw files
// are absent and there is no spool to rebuild them from. A directory
// without experiment.yaml is no run directory: nothing to recover.
//
// Then, recovered or not, it merges the testers' own spools the run
// directory holds (mergeSpools): what they hold that the files lack.
func Recover(dir string, progress io.Writer) (rec *Recovery, err error) {
	defer errs.Recover("recovering "+dir, &err)
	if rec, err = recoverSpool(dir, progress); err != nil {
		return nil, err
	}
	if _, err := os.Stat(rundir.Path(dir, rundir.Experiment)); err != nil {
		return rec, nil
	}
	if _, err := mergeSpools(dir, progress); err != nil {
		return rec, fmt.Errorf("%s: %w", dir, err)
	}
	return rec, nil
}

// recoverSpool is Recover without the merge of the testers' spools.
func recoverSpool(dir string, progress io.Writer) (*Recovery, error) {
	if _, err := os.Stat(rundir.Path(dir, rundir.Experiment)); err != nil {
		return nil, nil // not a run directory: Load says so
	}
	spool := rundir.Path(dir, rundir.Spool)
	missing := missingRaw(dir)
	if _, err := os.Stat(spool); errors.Is(err, fs.ErrNotExist) {
		if missing != "" {
			return nil, fmt.Errorf("%s has no %s and no %s to rebuild it from: the run ended before its controller collected any sample (see %s and %s/)",
				dir, missing, rundir.Spool, rundir.Events, rundir.LogDir)
		}
		return nil, nil
	}
	if missing == "" {
		return nil, nil // the controller wrote every file and died before it removed the spool
	}
	f, err := rundir.LockSpool(spool)
	if errors.Is(err, rundir.ErrSpoolInUse) {
		return nil, fmt.Errorf("%w; wait for `diperf run` to end, then analyze %s", err, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("recovering the run from its spool: %w", err)
	}
	defer f.Close() // holds the lock until the files are written
	recs, rec, err := replaySpool(f)
	if err != nil {
		return nil, fmt.Errorf("recovering the run from %s: %w", spool, err)
	}
	if err := writeRecovered(dir, recs, rec); err != nil {
		return nil, fmt.Errorf("recovering the run from %s: %w", spool, err)
	}
	if progress != nil {
		fmt.Fprintln(progress, rec.String())
	}
	return rec, rundir.Remove(dir, rundir.Spool)
}

// missingRaw names the first raw file dir lacks ("" if none).
func missingRaw(dir string) string {
	for _, name := range []string{rundir.Testers, rundir.Syncs, rundir.Samples} {
		if _, err := os.Stat(rundir.Path(dir, name)); err != nil {
			return name
		}
	}
	return ""
}

// writeRecovered says in events.jsonl that the run is recovered (first,
// so that an interrupted recovery is redone and still says so), then
// writes samples.parquet and the tester files.
func writeRecovered(dir string, recs []*rundir.TesterRecord, rec *Recovery) error {
	ev, err := rundir.CreateEventLog(dir)
	if err != nil {
		return err
	}
	ev.Add(RecoveredEvent, -1, "", rec.String())
	if err := ev.Close(); err != nil {
		return err
	}
	if _, err := rundir.WriteSamples(dir, recs); err != nil {
		return err
	}
	return rundir.WriteTesters(dir, recs)
}

// spoolState is a spool replayed into tester records.
type spoolState struct {
	recs     map[int]*rundir.TesterRecord
	lastEnd  map[int]int64 // each slot's latest sample end, local ns
	received uint64
}

func (s *spoolState) tester(slot int) *rundir.TesterRecord {
	t := s.recs[slot]
	if t == nil {
		t = &rundir.TesterRecord{Slot: slot}
		s.recs[slot] = t
	}
	return t
}

// replaySpool rebuilds the controller's tester records from a spool: the
// last snapshot of each slot, its syncs, its received count and the
// largest count it said it produced. Testers that had not finished are
// marked failed, stopped at the last moment the spool knows of.
func replaySpool(r io.Reader) ([]*rundir.TesterRecord, *Recovery, error) {
	st := &spoolState{recs: map[int]*rundir.TesterRecord{}, lastEnd: map[int]int64{}}
	err := rundir.ReadSpoolFrom(r, rundir.SpoolVisitor{
		Tester: func(snap rundir.TesterRecord) error {
			t := st.tester(snap.Slot)
			snap.Syncs, snap.Received, snap.Sent = t.Syncs, t.Received, max(t.Sent, snap.Sent)
			*t = snap
			return nil
		},
		Sync: func(slot int, r clock.Record) error {
			t := st.tester(slot)
			t.Syncs = append(t.Syncs, r)
			return nil
		},
		Batch: func(slot int, b *protocol.Batch) error {
			t := st.tester(slot)
			t.Received += uint64(len(b.Samples))
			t.Sent = max(t.Sent, b.Produced)
			st.received += uint64(len(b.Samples))
			for _, s := range b.Samples {
				st.lastEnd[slot] = max(st.lastEnd[slot], s.End)
			}
			return nil
		},
	})
	if err != nil {
		return nil, nil, err
	}
	recs := make([]*rundir.TesterRecord, 0, len(st.recs))
	for _, t := range st.recs {
		recs = append(recs, t)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Slot < recs[j].Slot })
	rec := &Recovery{Samples: st.received, Testers: len(recs)}
	cut := st.lastMoment(recs)
	for _, t := range recs {
		if !t.Failed && t.StopNs == 0 { // neither done nor failed
			t.Failed, t.FailureReason, t.StopNs = true, CutShort, cut
			rec.CutShort++
		}
	}
	return recs, rec, nil
}

// lastMoment is the latest global time the spool knows of: a tester's
// launch, start or stop, or the end of a sample.
func (s *spoolState) lastMoment(recs []*rundir.TesterRecord) int64 {
	var last int64
	for _, t := range recs {
		last = max(last, t.LaunchNs, t.StartNs, t.StopNs)
		if end, ok := s.lastEnd[t.Slot]; ok {
			last = max(last, clock.NewMapper(t.Syncs).Global(end))
		}
	}
	return last
}
