package cli

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/diperf/diperf/internal/errs"
)

// sensorCommands are the subcommands of `diperf sensor`. The sensor daemon
// itself (`diperf sensor --directory URL ...`, whose first argument is a
// flag) is to be dispatched from sensorCmd when args[0] is not one of them.
var sensorCommands = map[string]func(context.Context, *env, []string) error{
	"evaluate": sensorEvaluateCmd,
}

// sensorSummary is `diperf sensor` in diperf --help: the daemon and each
// subcommand.
const sensorSummary = "a network sensor: sensor --directory URL [--token-file F] [flags] tests bandwidth and latency to its peers " +
	"and writes results and forecasts to the directory (diperf sensor -h); sensor evaluate TRACE.csv [--json] [--out DIR] " +
	"scores the forecasters on a trace (Gloperf §4; diperf forecast A B --trace exports one)"

// sensorCmd implements `diperf sensor SUBCOMMAND`.
func sensorCmd(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		return sensorDaemon(ctx, e, args)
	}
	if len(args) == 0 || sensorCommands[args[0]] == nil {
		return errs.Usagef("usage: diperf sensor --directory URL --token-file F [flags], or diperf sensor %s [flags]",
			strings.Join(slices.Sorted(maps.Keys(sensorCommands)), "|"))
	}
	return sensorCommands[args[0]](ctx, e, args[1:])
}
