package cli

import (
	"context"
	"fmt"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/protocol"
)

// benchControllerRunCmd is `diperf bench controller-run` (hidden,
// bench.NullRun): `diperf run` whose testers run the null client, whose
// calls return OK at once, instead of the experiment's. It is a
// benchmark instrument, the controller of `diperf bench controller
// --transport ssh`, never documented and never reachable from `diperf
// run` or an experiment file. It says so on stderr, so that a run never
// measures it silently.
func benchControllerRunCmd(ctx context.Context, e *env, args []string) error {
	fmt.Fprintf(e.stderr, "diperf bench %s: %s\n", bench.NullRun, bench.NullRunSays)
	return runWith(ctx, e, "bench "+bench.NullRun, args, &protocol.ClientDesc{Kind: protocol.ClientNull})
}
