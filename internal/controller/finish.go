package controller

import (
	"fmt"
	"path/filepath"

	"github.com/diperf/diperf/internal/experiment"

	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
)

// finish writes the run directory's files once every tester is finished.
func (c *controller) finish() (*Outcome, error) {
	c.events.Add("cleanup", -1, "", "writing the run directory")
	c.mu.Lock()
	sp := c.spool
	c.spool = nil // no more tester records (journal)
	c.mu.Unlock()
	if err := sp.Close(); err != nil {
		return nil, fmt.Errorf("closing the sample spool: %w", err)
	}
	c.mu.Lock()
	recs := make([]*rundir.TesterRecord, len(c.slots))
	out := &Outcome{Dir: c.o.Dir}
	for i, s := range c.slots {
		recs[i] = s.rec
		out.Samples += s.rec.Received
		if s.rec.StartNs != 0 {
			out.Started++
		}
		if s.rec.Failed {
			out.Failed++
		}
	}
	c.mu.Unlock()
	if err := rundir.WriteTesters(c.o.Dir, recs); err != nil {
		return out, err
	}
	if err := writeSamples(c.o.Dir, recs, sp); err != nil {
		return out, fmt.Errorf("writing samples.parquet: %w", err)
	}
	_ = rundir.Remove(c.o.Dir, rundir.Spool)
	c.events.Add("run-end", -1, "", fmt.Sprintf("%d samples, %d/%d testers failed", out.Samples, out.Failed, len(recs)))
	if out.Samples == 0 {
		return out, fmt.Errorf("no samples were collected (%d of %d testers failed); see %s",
			out.Failed, len(recs), rundir.Path(c.o.Dir, rundir.LogDir))
	}
	c.writeNetwork(recs)
	_, err := pipeline.Derive(c.o.Dir, pipeline.Options{})
	return out, err
}

// openSpool opens the run's sample spool for controller.mode mode: a
// file in dir (disk, the default) or memory.
func openSpool(dir, mode string) (*rundir.SpoolWriter, error) {
	if mode == experiment.ModeMemory {
		return rundir.NewMemorySpool(), nil
	}
	return rundir.CreateSpool(filepath.Join(dir, rundir.Spool))
}

// writeSamples converts the closed spool sp into samples.parquet.
func writeSamples(dir string, recs []*rundir.TesterRecord, sp *rundir.SpoolWriter) error {
	var err error
	if sp.InMemory() {
		_, err = rundir.WriteSamplesSpool(dir, recs, sp)
	} else {
		_, err = rundir.WriteSamplesKeys(dir, recs, sp.ExtraKeys())
	}
	return err
}
