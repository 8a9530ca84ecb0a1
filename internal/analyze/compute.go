package analyze

import (
	"errors"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// MinQuantum is the smallest aggregation quantum Compute accepts.
const MinQuantum = 10 * time.Millisecond

// Compute derives every metric of a run from its calls and testers, held
// in memory; Accumulator does the same for calls streamed in batches.
//
// The time origin is the earliest tester start (the earliest call start if
// there are no testers), rounded down to a multiple of the quantum in Unix
// time; the quanta cover the run from there to the last call or tester end.
// Calls are attributed to the quantum in which they end; the offered load
// counts every call, whatever its class, as in flight over [Start, End).
// Calls before the origin are clipped to it. Calls of unknown testers count
// in the global figures only. Compute does not modify in.
func Compute(in *Input) (*Result, error) {
	if in == nil {
		return nil, errors.New("analyze: no input")
	}
	if len(in.Calls) == 0 && len(in.Testers) == 0 {
		return nil, errNoData
	}
	a, err := NewAccumulator(Config{Name: in.Name, Quantum: in.Quantum, Planned: in.Planned,
		Lost: in.Lost, Testers: in.Testers, Origin: EarliestStart(in.Calls),
		ClientsPerTester: in.ClientsPerTester, ClientStartInterval: in.ClientStartInterval, Health: in.Health})
	if err != nil {
		return nil, err
	}
	if err := a.Add(in.Calls); err != nil {
		return nil, err
	}
	return a.Result()
}

// EarliestStart returns the earliest start of calls (0 for none).
func EarliestStart(calls []sample.Call) int64 {
	if len(calls) == 0 {
		return 0
	}
	first := calls[0].Start
	for i := range calls {
		first = min(first, calls[i].Start)
	}
	return first
}
