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

// givenFlags says which of fs's flags the command line set (the one
// "which flags were given" of the commands: a flag given overrides the
// experiment file's key, one left out does not).
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}
