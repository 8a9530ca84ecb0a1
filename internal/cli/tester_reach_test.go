package cli

import (
	"testing"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// TestTesterFlagsReach: the flag each provider starts its testers with
// (testbed.ReachOf(provider).Flag()) makes the tester reach its controller
// the way the run chose: --stdio over the SSH session's stdio (even beside
// --join), --join joining with waits while the controller does not answer,
// --controller dialling.
func TestTesterFlagsReach(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider string
		flags    testerFlags
	}{
		{experiment.ProviderLocal, testerFlags{secretFD: 3}},
		{experiment.ProviderJoin, testerFlags{join: "ctl:1", tokenFile: "t"}},
		{experiment.ProviderSlurm, testerFlags{join: "ctl:1", tokenFile: "t"}},
		{experiment.ProviderSSH, testerFlags{stdio: true}},
		{experiment.ProviderSSH, testerFlags{stdio: true, join: "ctl:1"}},
	} {
		want := testbed.ReachOf(tt.provider)
		if got := tt.flags.reach(); got != want {
			t.Errorf("%s: flags %+v reach the controller by %v; the run chose %v", tt.provider, tt.flags, got, want)
		}
	}
	for _, r := range []transport.Reach{transport.Dial, transport.Join, transport.Attached} {
		if "--"+flagName(r) != r.Flag() {
			t.Errorf("%v: the tester's flag is --%s, the testbeds start it with %s", r, flagName(r), r.Flag())
		}
	}
}
