package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// spoolTruth is what a crashed run's spools hold, read directly: the
// seqs of each tester in the controller's spool or its own, and the
// largest count it said it produced in its own.
type spoolTruth struct {
	seqs     map[int]map[uint64]bool
	produced map[int]uint64
	own      int // samples in the testers' own spools only, not in the controller's
}

// readTruth reads the controller's spool at ctl and the testers' own
// spools at own (slot → path) without diperf's merge.
func readTruth(t *testing.T, ctl string, own map[int]string) spoolTruth {
	t.Helper()
	tr := spoolTruth{seqs: map[int]map[uint64]bool{}, produced: map[int]uint64{}}
	add := func(slot int, b *protocol.Batch, mine bool) {
		if tr.seqs[slot] == nil {
			tr.seqs[slot] = map[uint64]bool{}
		}
		for _, s := range b.Samples {
			if !tr.seqs[slot][s.Seq] && mine {
				tr.own++
			}
			tr.seqs[slot][s.Seq] = true
		}
	}
	err := rundir.ReadSpool(ctl, rundir.SpoolVisitor{Batch: func(slot int, b *protocol.Batch) error {
		add(slot, b, false)
		return nil
	}})
	if err != nil {
		t.Fatalf("the controller's spool: %v", err)
	}
	for slot, path := range own {
		err := rundir.ReadSpool(path, rundir.SpoolVisitor{Batch: func(s int, b *protocol.Batch) error {
			if s != slot {
				t.Errorf("%s holds a batch of tester %d", path, s)
			}
			tr.produced[slot] = max(tr.produced[slot], b.Produced)
			add(slot, b, true)
			return nil
		}})
		if err != nil {
			t.Fatalf("tester %d's own spool: %v", slot, err)
		}
	}
	return tr
}

// localTesterSpools returns the testers' own spools of a local run.
func localTesterSpools(t *testing.T, dir string) map[int]string {
	t.Helper()
	own := map[int]string{}
	for slot := range 1000 {
		p := filepath.Join(dir, rundir.LogDir, "tester-"+pad3(slot)+".spool")
		if _, err := os.Stat(p); err == nil {
			own[slot] = p
		}
	}
	if len(own) == 0 {
		t.Fatalf("the crashed run left no tester spool in %s", filepath.Join(dir, rundir.LogDir))
	}
	return own
}

func pad3(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

// checkMerged asserts that samples.parquet holds every sample of any
// spool (tr), each once, and nothing else; and that testers.csv says each
// tester received what is stored, sent what it said it produced (its own
// spool, or more if its Done said so), and lost the difference.
func checkMerged(t *testing.T, dir string, tr spoolTruth) {
	t.Helper()
	got := parquetSeqs(t, dir)
	for slot, want := range tr.seqs {
		missing := 0
		for seq := range want {
			if !got[slot][seq] {
				missing++
			}
		}
		if missing > 0 || len(got[slot]) != len(want) {
			t.Errorf("tester %d: %d samples in its spools, samples.parquet has %d (%d of them missing)", slot, len(want), len(got[slot]), missing)
		}
	}
	for _, r := range readTesters(t, dir) {
		i := r.int(t, "index")
		sent, recv, lost := r.int(t, "samples_sent"), r.int(t, "samples_received"), r.int(t, "samples_lost")
		if recv != len(got[i]) || sent < int(tr.produced[i]) || lost != sent-recv {
			t.Errorf("testers.csv: tester %d sent %d, received %d, lost %d; samples.parquet holds %d, its own spool says it produced %d",
				i, sent, recv, lost, len(got[i]), tr.produced[i])
		}
	}
}
