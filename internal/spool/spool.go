// Package spool is the format of a run's raw data as it arrives
// (samples.spool): the frames the controller appends, and a tester's own
// spool of what it sent, written and read here. It sits below the run
// directory (package rundir), which gives the tester records their
// content, so that a tester links no Parquet, CSV or run-directory code.
package spool

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
)

// The spool (samples.spool) is the run's raw data as it arrives: a
// sequence of frames with the protocol's frame header (4-byte big-endian
// payload length, then a protocol.Type byte), each payload starting with
// the tester's slot as a uvarint. Three frame types occur:
//
//   - protocol.TypeSamples: a sample batch, its encoded wire payload as
//     the tester sent it (protocol.DecodeBatch reads it);
//   - protocol.TypeSyncRecord: one clock sync record, JSON of clock.Record;
//   - TesterType (protocol.TypeHello, "who this tester is"): a
//     snapshot of the controller's record of that tester, JSON of its
//     scalar fields (see rundir's spoolTester). The last snapshot of a slot wins;
//     its syncs come from the sync frames and its received count from the
//     batches, so a replay rebuilds testers.csv as the controller had it.
//
// A crash leaves a readable prefix and at most one torn frame at the end,
// which the reader ignores.
//
// Durability contract: Batch, Sync and Tester return only once their frame
// is in the file through write(2), with no user-space buffer in between:
// a controller killed with SIGKILL right after a call returned nil loses
// nothing of that call (the kernel holds it). Against a crash of the whole
// machine, the file is fsynced at most SyncEvery after any write, and at
// Close. The controller acknowledges a batch to its tester only after
// Batch returned nil for it: what a tester saw acknowledged is in the
// spool.
const TesterType = protocol.TypeHello

// FileMode is the spool file's mode (the run directory's files').
const FileMode = 0o644

// SyncEvery is how long a spool write may wait for its fsync.
const SyncEvery = time.Second

// maxFrame bounds a spool frame's payload: a whole wire frame and
// the slot in front of it.
const maxFrame = protocol.MaxFrame + binary.MaxVarintLen64

// Writer appends sample batches, sync records and tester records,
// each tagged with the tester's slot, to the spool. Safe for concurrent
// use; see TesterType for the format and the durability contract.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	mem  *memSpool // the frames, for a memory spool (f is nil until it spills)
	size int64     // bytes of whole frames in the file
	buf  []byte    // the frame being written
	err  error     // sticky: a failed fsync or a write that could not be undone
	// dirty is set by a write and cleared by the fsync that covers it.
	dirty bool
	fsync func(*os.File) error // f.Sync; tests count the calls
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	// closeErr is what Close returned.
	closeErr error
	// A memory spool's spill (spoolmem.go): whether its syncLoop runs,
	// whether Close began (no spill then), and who hears of the spill.
	looping, closing bool
	onSpill          func()
}

// Create opens a new spool file and starts its fsync cadence. The
// file is locked (flock) while the writer holds it, so that a recovery
// can tell a live run from a dead one.
func Create(path string) (*Writer, error) {
	return create(path, (*os.File).Sync)
}

// create is Create with the fsync to use.
func create(path string, fsync func(*os.File) error) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, FileMode)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	s := &Writer{f: f, fsync: fsync, stop: make(chan struct{}), done: make(chan struct{}), looping: true}
	go s.syncLoop()
	return s, nil
}

// Batch appends one tester's sample batch (its encoded wire payload).
func (s *Writer) Batch(slot int, payload []byte) error {
	return s.frame(protocol.TypeSamples, slot, payload)
}

// Sync appends one tester's sync record.
func (s *Writer) Sync(slot int, r clock.Record) error {
	b, _ := json.Marshal(r)
	return s.frame(protocol.TypeSyncRecord, slot, b)
}

// Record appends one tester's record (the payload of a TesterType
// frame: what package rundir makes of the controller's record of it).
func (s *Writer) Record(slot int, payload []byte) error {
	return s.frame(TesterType, slot, payload)
}

// frame writes one frame with a single write(2). A write that fails half
// way is cut off again, so that the frames after it stay readable.
func (s *Writer) frame(t protocol.Type, slot int, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frameLocked(t, slot, payload)
}

// frameLocked is frame, s.mu held.
func (s *Writer) frameLocked(t protocol.Type, slot int, payload []byte) error {
	if s.err != nil {
		return s.err
	}
	if slot < 0 {
		return fmt.Errorf("spool: bad tester slot %d", slot)
	}
	s.buf = append(s.buf[:0], 0, 0, 0, 0, byte(t))
	s.buf = binary.AppendUvarint(s.buf, uint64(slot))
	s.buf = append(s.buf, payload...)
	n := len(s.buf) - 5
	if n > maxFrame {
		return fmt.Errorf("spool: %w: %d bytes (limit %d)", protocol.ErrFrameTooLarge, n, maxFrame)
	}
	binary.BigEndian.PutUint32(s.buf, uint32(n))
	if s.mem != nil && s.f == nil {
		if s.mem.fits(len(s.buf)) {
			s.mem.write(s.buf)
			return nil
		}
		if err := s.spillLocked(); err != nil {
			s.err = err
			return err
		}
	}
	if _, err := s.f.Write(s.buf); err != nil {
		if terr := s.undo(); terr != nil {
			s.err = fmt.Errorf("spool: a write failed (%w) and could not be undone: %w", err, terr)
		}
		return fmt.Errorf("spool: %w", err)
	}
	s.size += int64(len(s.buf))
	s.dirty = true
	return nil
}

// undo cuts the file back to its whole frames.
func (s *Writer) undo() error {
	if err := s.f.Truncate(s.size); err != nil {
		return err
	}
	_, err := s.f.Seek(s.size, 0)
	return err
}

// syncLoop fsyncs the file every SyncEvery while it has unsynced writes.
func (s *Writer) syncLoop() {
	defer close(s.done)
	tick := time.NewTicker(SyncEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			_ = s.syncNow()
		}
	}
}

// syncNow fsyncs the file if it has unsynced writes; a failure is kept
// and returned by every later call.
func (s *Writer) syncNow() error {
	s.mu.Lock()
	dirty := s.dirty
	s.dirty = false
	s.mu.Unlock()
	if !dirty {
		return nil
	}
	if err := s.fsync(s.f); err != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.err == nil {
			s.err = fmt.Errorf("spool: fsync: %w", err)
		}
		return s.err
	}
	return nil
}

// Close fsyncs and closes the spool (and releases its lock). Later calls
// return what the first one did.
func (s *Writer) Close() error {
	s.once.Do(func() {
		close(s.stop)
		s.mu.Lock()
		s.closing = true
		looping := s.looping
		s.mu.Unlock()
		if looping {
			<-s.done
		}
		var err error
		if s.f != nil {
			err = s.syncNow()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if err == nil {
			err = s.err
		}
		if s.f != nil {
			if cerr := s.f.Close(); err == nil {
				err = cerr
			}
		}
		if err == nil {
			err = errClosed
		} else {
			s.closeErr = err
		}
		s.err = err
	})
	return s.closeErr
}

// errClosed is returned by writes to a closed spool.
var errClosed = errors.New("spool: closed")
