package protocol

import (
	"encoding/json"
	"fmt"
	"math"
)

// LoadStep is the payload of a TypeLoad frame: the controller moves the
// load one tester offers while the test runs (TestDesc.Steered). From
// AtNs on, until the next step, the open model's rate is Rate and the
// closed model's active clients are Active (clients 0 to Active−1 call,
// the others wait); a model ignores the other's field.
type LoadStep struct {
	Seq    uint32  `json:"seq"`    // 1, 2, ...: each step's higher than the last
	AtNs   int64   `json:"at_ns"`  // when it takes effect, global time (Unix ns)
	Rate   float64 `json:"rate"`   // open model: this tester's calls/s, 0..MaxRate
	Active uint32  `json:"active"` // closed model: client loops that call, 0..clients
}

// MaxLoadFrame bounds a TypeLoad frame's payload: a LoadStep's JSON is
// under 100 bytes.
const MaxLoadFrame = 256

// Validate checks a LoadStep received from the wire for a tester of
// clients client loops. Its order and time are the tester's to check
// against what it holds (its last step, its clock).
func (s *LoadStep) Validate(clients int) error {
	switch {
	case s.Seq == 0:
		return fmt.Errorf("load step: seq must be 1 or more")
	case s.AtNs <= 0:
		return fmt.Errorf("load step %d: at_ns must be positive", s.Seq)
	case math.IsNaN(s.Rate) || s.Rate < 0 || s.Rate > MaxRate:
		return fmt.Errorf("load step %d: rate %v out of 0..%d calls/s", s.Seq, s.Rate, MaxRate)
	case int64(s.Active) > int64(clients):
		return fmt.Errorf("load step %d: %d active clients of %d", s.Seq, s.Active, clients)
	}
	return nil
}

// DecodeLoadStep decodes and checks the payload of a TypeLoad frame for a
// tester of clients client loops: at most MaxLoadFrame bytes, one JSON
// object (a field it does not know is left alone: a later controller may
// add one), within LoadStep.Validate.
func DecodeLoadStep(p []byte, clients int) (LoadStep, error) {
	var s LoadStep
	if len(p) > MaxLoadFrame {
		return s, fmt.Errorf("load step: %d bytes (limit %d)", len(p), MaxLoadFrame)
	}
	if err := json.Unmarshal(p, &s); err != nil {
		return s, fmt.Errorf("load step: %w", err)
	}
	return s, s.Validate(clients)
}
