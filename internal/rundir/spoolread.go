package rundir

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/spool"
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
func ReadSpool(path string, v SpoolVisitor) error { return spool.Read(path, v.frames()) }

// ReadSpoolFrom replays a spool from r, as ReadSpool does.
func ReadSpoolFrom(r io.Reader, v SpoolVisitor) error { return spool.ReadFrom(r, v.frames()) }

// LockSpool opens the spool at path for reading and locks it, so that no
// controller writes it meanwhile: ErrSpoolInUse (wrapped) while one does.
// Closing the file releases the lock.
func LockSpool(path string) (*os.File, error) { return spool.Lock(path) }

// ErrSpoolInUse is returned by LockSpool while a live controller (or
// another recovery) holds the spool.
var ErrSpoolInUse = spool.ErrInUse

// frames is v as package spool's visitor: a tester record's payload
// decoded into a TesterRecord.
func (v SpoolVisitor) frames() spool.Visitor {
	f := spool.Visitor{Batch: v.Batch, Sync: v.Sync}
	if v.Tester != nil {
		f.Record = func(slot int, p []byte) error {
			var s spoolTester
			if err := json.Unmarshal(p, &s); err != nil {
				return fmt.Errorf("tester record: %w", err)
			}
			if s.Slot != slot {
				return fmt.Errorf("tester record of slot %d in a frame of slot %d", s.Slot, slot)
			}
			return v.Tester(s.record())
		}
	}
	return f
}
