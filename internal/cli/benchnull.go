package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/protocol"
)

// benchNullClient is the client `diperf run` gives its testers instead of
// the experiment's when bench.NullClientEnv is "1": the null client, whose
// calls return OK at once. It is a benchmark instrument, set by `diperf
// bench controller --transport ssh` for its child, never documented as a
// flag and never reachable from an experiment file; nil otherwise. It
// says so on stderr, so that a run never measures it silently.
func benchNullClient(stderr io.Writer) *protocol.ClientDesc {
	if os.Getenv(bench.NullClientEnv) != "1" {
		return nil
	}
	fmt.Fprintf(stderr, "diperf: %s=1: the testers run the null client (a benchmark instrument), not the experiment's client\n", bench.NullClientEnv)
	return &protocol.ClientDesc{Kind: protocol.ClientNull}
}
