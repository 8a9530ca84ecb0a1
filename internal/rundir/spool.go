package rundir

import (
	"encoding/json"
	"sync"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/spool"
)

// SpoolTesterType is the frame type of a tester record in the spool
// (package spool holds the format: frames, durability, locking).
const SpoolTesterType = spool.TesterType

// SyncEvery is how long a spool write may wait for its fsync.
const SyncEvery = spool.SyncEvery

// SpoolWriter is the run's spool (package spool's Writer) with what the
// run directory adds: the tester records' content (Tester) and the
// extras' keys of the batches written (Samples, ExtraKeys). Safe for
// concurrent use.
type SpoolWriter struct {
	*spool.Writer
	mu   sync.Mutex
	keys extraKeys // the extras' keys of the batches written with Samples
}

// CreateSpool opens a new spool file (spool.Create: locked while written,
// fsynced at most SyncEvery after a write).
func CreateSpool(path string) (*SpoolWriter, error) {
	w, err := spool.Create(path)
	if err != nil {
		return nil, err
	}
	return &SpoolWriter{Writer: w}, nil
}

// NewMemorySpool is a spool held in memory up to limit bytes, spilling
// past it to a file at spill (spool.NewMemory).
func NewMemorySpool(limit int64, spill string, onSpill func()) *SpoolWriter {
	return &SpoolWriter{Writer: spool.NewMemory(limit, spill, onSpill)}
}

// Samples appends one tester's sample batch, as Batch does, whose decoded
// samples are samples: the spool then knows its extras' keys (ExtraKeys)
// without being read again.
func (s *SpoolWriter) Samples(slot int, payload []byte, samples []sample.Sample) error {
	if err := s.Batch(slot, payload); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys.add(samples) // a set: the order of the frames does not matter
	return nil
}

// ExtraKeys returns the keys of the extras columns of the samples written
// with Samples, as WriteSamples finds them in the spool.
func (s *SpoolWriter) ExtraKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys.sorted()
}

// Tester appends a snapshot of the controller's record of one tester (its
// scalar fields: not its syncs, which have their own frames, nor its
// received count, which the batches give).
func (s *SpoolWriter) Tester(rec TesterRecord) error {
	b, _ := json.Marshal(toSpoolTester(&rec))
	return s.Record(rec.Slot, b)
}
