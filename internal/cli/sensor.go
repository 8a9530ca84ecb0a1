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
