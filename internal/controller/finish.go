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
	c.applySites(recs)
	c.markChosen(recs)
	if err := rundir.WriteTesters(c.o.Dir, recs); err != nil {
		return out, err
	}
	if err := c.writeHealth(); err != nil {
		return out, err
	}
	if err := c.writeSearch(out); err != nil {
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
	var err error
	out.Analysis, err = pipeline.DeriveAll(c.o.Dir, pipeline.Options{})
	return out, err
}

// openSpool opens the run's sample spool for controller.mode: a file in
// the run directory (disk, the default) or memory, up to
// controller.memory_limit_mb, past which it spills to that file.
func (c *controller) openSpool() (*rundir.SpoolWriter, error) {
	path := filepath.Join(c.o.Dir, rundir.Spool)
	if c.exp.Controller.Mode != experiment.ModeMemory {
		return rundir.CreateSpool(path)
	}
	mb := c.exp.Controller.MemoryLimitMB
	if mb == 0 {
		mb = experiment.DefaultMemoryLimitMB
	}
	limit := int64(mb) << 20
	return rundir.NewMemorySpool(limit, path, func() {
		c.events.Add("memory-spill", -1, "", fmt.Sprintf("the samples in memory reached controller.memory_limit_mb (%d MiB): the rest goes to %s", mb, rundir.Spool))
	}), nil
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
