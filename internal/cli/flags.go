package cli

import (
	"flag"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/pipeline"
)

// clockFlag defines --clock, how samples are placed on the timeline.
func clockFlag(fs *flag.FlagSet) *string {
	return fs.String("clock", pipeline.ClockSync, "place samples on the timeline from the testers' clock syncs (sync) or as their own clocks said (raw: no correction)")
}

// checkAnalysisFlags checks --quantum and --clock.
func checkAnalysisFlags(quantum time.Duration, clockMode string) error {
	if quantum < 0 {
		return errs.Usagef("--quantum must not be negative")
	}
	if clockMode != pipeline.ClockSync && clockMode != pipeline.ClockRaw {
		return errs.Usagef("--clock must be %s or %s", pipeline.ClockSync, pipeline.ClockRaw)
	}
	return nil
}
