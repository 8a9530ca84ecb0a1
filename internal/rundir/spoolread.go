package rundir

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
)

// spoolTester is the JSON of a tester record frame: the scalar fields of
// a TesterRecord.
type spoolTester struct {
	Slot          int       `json:"slot"`
	ID            string    `json:"id,omitempty"`
	Host          string    `json:"host,omitempty"`
	PID           int       `json:"pid,omitempty"`
	LaunchNs      int64     `json:"launch_ns,omitempty"`
	StartNs       int64     `json:"start_ns,omitempty"`
	StopNs        int64     `json:"stop_ns,omitempty"`
	PlannedNs     int64     `json:"planned_ns,omitempty"`
	Failed        bool      `json:"failed,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	Sent          uint64    `json:"sent,omitempty"`
	InjectedOff   int64     `json:"injected_offset_ns,omitempty"`
	InjectedDrift float64   `json:"injected_drift_ppm,omitempty"`
	TargetRTTNs   int64     `json:"target_rtt_ns,omitempty"`
	StoppedEarly  bool      `json:"stopped_early,omitempty"`
	StopReason    string    `json:"stop_reason,omitempty"`
	Refused       *Refusals `json:"refused,omitempty"`
	ClockAuth     bool      `json:"clock_auth,omitempty"`
	ClockRefused  uint64    `json:"clock_refused,omitempty"`
	ClockSuspect  string    `json:"clock_suspect,omitempty"`
	ClockSyncsRef uint64    `json:"clock_syncs_refused,omitempty"`
}

func toSpoolTester(t *TesterRecord) spoolTester {
	return spoolTester{Slot: t.Slot, ID: t.ID, Host: t.Host, PID: t.PID, LaunchNs: t.LaunchNs, StartNs: t.StartNs,
		StopNs: t.StopNs, PlannedNs: t.PlannedNs, Failed: t.Failed, Reason: t.FailureReason, Sent: t.Sent,
		InjectedOff: t.InjectedOff, InjectedDrift: t.InjectedDrift, TargetRTTNs: t.TargetRTTNs,
		StoppedEarly: t.StoppedEarly, StopReason: t.StopReason, Refused: refusedOf(t),
		ClockAuth: t.ClockAuth, ClockRefused: t.ClockRefused, ClockSuspect: t.ClockSuspect, ClockSyncsRef: t.ClockSyncsRefused}
}

// refusedOf is t's refusals for a snapshot (nil: none).
func refusedOf(t *TesterRecord) *Refusals {
	if !t.Refused.Any() {
		return nil
	}
	r := t.Refused
	return &r
}

func (s *spoolTester) record() TesterRecord {
	r := TesterRecord{Slot: s.Slot, ID: s.ID, Host: s.Host, PID: s.PID, LaunchNs: s.LaunchNs, StartNs: s.StartNs,
		StopNs: s.StopNs, PlannedNs: s.PlannedNs, Failed: s.Failed, FailureReason: s.Reason, Sent: s.Sent,
		InjectedOff: s.InjectedOff, InjectedDrift: s.InjectedDrift, TargetRTTNs: s.TargetRTTNs,
		StoppedEarly: s.StoppedEarly, StopReason: s.StopReason,
		ClockAuth: s.ClockAuth, ClockRefused: s.ClockRefused, ClockSuspect: s.ClockSuspect, ClockSyncsRefused: s.ClockSyncsRef}
	if s.Refused != nil {
		r.Refused = *s.Refused
	}
	return r
}

// SpoolVisitor receives what a spool holds, in order. A nil func skips
// those frames.
type SpoolVisitor struct {
	Batch  func(slot int, b *protocol.Batch) error
	Sync   func(slot int, r clock.Record) error
	Tester func(rec TesterRecord) error // a snapshot: Syncs and Received are not in it
}

// ReadSpool replays the spool at path. A torn last frame (a crash
// mid-write) ends the replay without error; anything else malformed is an
// error that says at which byte.
func ReadSpool(path string, v SpoolVisitor) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ReadSpoolFrom(f, v); err != nil {
		return fmt.Errorf("spool %s: %w", path, err)
	}
	return nil
}

// LockSpool opens the spool at path for reading and locks it, so that no
// controller writes it meanwhile: ErrSpoolInUse (wrapped) while one does.
// Closing the file releases the lock.
func LockSpool(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// ErrSpoolInUse is returned by LockSpool while a live controller (or
// another recovery) holds the spool.
var ErrSpoolInUse = errors.New("the spool is in use: the run's controller is still running, or another diperf recovers it")

// ReadSpoolFrom replays a spool from r, as ReadSpool does. It holds at
// most one frame (bounded by the frame limit) at a time.
func ReadSpoolFrom(r io.Reader, v SpoolVisitor) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	var buf []byte
	for {
		t, p, err := readSpoolFrame(br, &buf)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // the end, or a torn last frame
		}
		if err == nil {
			err = replay(t, p, v)
		}
		if err != nil {
			return fmt.Errorf("frame at byte %d: %w", off, err)
		}
		off += int64(5 + len(p))
	}
}

// readSpoolFrame reads one frame into *buf (reused).
func readSpoolFrame(r io.Reader, buf *[]byte) (protocol.Type, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	t := protocol.Type(hdr[4])
	switch {
	case n > maxSpoolFrame:
		return 0, nil, fmt.Errorf("%w: %d bytes (limit %d)", protocol.ErrFrameTooLarge, n, maxSpoolFrame)
	case t != protocol.TypeSamples && t != protocol.TypeSyncRecord && t != SpoolTesterType:
		return 0, nil, fmt.Errorf("unexpected frame type %d (%s) in a spool", hdr[4], t)
	}
	// Grown as the payload arrives, so that a header that lies about its
	// length costs no more memory than the bytes that follow it.
	p := (*buf)[:0]
	for len(p) < int(n) {
		chunk := min(int(n)-len(p), 64<<10)
		p = slices.Grow(p, chunk)
		m, err := io.ReadFull(r, p[len(p):len(p)+chunk])
		p = p[:len(p)+m]
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // torn
		}
		if err != nil {
			return 0, nil, err
		}
	}
	*buf = p
	return t, p, nil
}

func replay(t protocol.Type, p []byte, v SpoolVisitor) error {
	slot, n := binary.Uvarint(p)
	if n <= 0 || slot > math.MaxInt32 {
		return errors.New("bad tester slot")
	}
	p = p[n:]
	switch t {
	case protocol.TypeSamples:
		b, err := protocol.DecodeBatch(p)
		if err != nil || v.Batch == nil {
			return err
		}
		return v.Batch(int(slot), b)
	case protocol.TypeSyncRecord:
		var r clock.Record
		if err := json.Unmarshal(p, &r); err != nil {
			return fmt.Errorf("sync record: %w", err)
		}
		if v.Sync == nil {
			return nil
		}
		return v.Sync(int(slot), r)
	default: // SpoolTesterType
		var s spoolTester
		if err := json.Unmarshal(p, &s); err != nil {
			return fmt.Errorf("tester record: %w", err)
		}
		if s.Slot != int(slot) {
			return fmt.Errorf("tester record of slot %d in a frame of slot %d", s.Slot, slot)
		}
		if v.Tester == nil {
			return nil
		}
		return v.Tester(s.record())
	}
}
