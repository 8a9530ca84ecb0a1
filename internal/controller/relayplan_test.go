package controller

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// TestPlanRelays: none when asked for none, or by default while the
// controller may open a file per tester, or for local and ssh testers
// (which do not dial it); N sharing the testers when asked for N, with an
// eighth to spare; by default as many as the testers need at the hard
// limit (less relay.Reserve, 64) each; N too few for the limit is bad
// usage saying how many would do.
func TestPlanRelays(t *testing.T) {
	t.Parallel()
	ptr := func(n int) *int { return &n }
	for _, tt := range []struct {
		name     string
		provider string
		testers  int
		asked    *int
		hard     uint64
		want     RelayPlan
		files    uint64 // what Apply says the controller needs
	}{
		{"asked none", experiment.ProviderJoin, 5000, ptr(0), 1024, RelayPlan{}, 32 + 5000},
		{"asked two", experiment.ProviderJoin, 100, ptr(2), 1024, RelayPlan{2, 50 + 6 + 1}, 32 + 4},
		{"default within the limit", experiment.ProviderJoin, 100, nil, 1024, RelayPlan{}, 32 + 100},
		{"default past the limit", experiment.ProviderJoin, 5000, nil, 1024, RelayPlan{6, 834 + 104 + 1}, 32 + 12}, // 1024 - 64 = 960 each: 6 relays of 834
		{"default, slurm", experiment.ProviderSlurm, 2000, nil, 1024, RelayPlan{3, 667 + 83 + 1}, 32 + 6},
		{"local testers dial no relay", experiment.ProviderLocal, 5000, nil, 1024, RelayPlan{}, 32 + 4*5000},
		{"ssh testers dial no relay", experiment.ProviderSSH, 5000, nil, 1024, RelayPlan{}, 32 + 5000},
	} {
		exp := experiment.Default()
		exp.Testbed.Provider, exp.Schedule.Testers, exp.Controller.Relays = tt.provider, tt.testers, tt.asked
		got, err := PlanRelays(&exp, tt.hard)
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
			continue
		}
		var o Options
		if files := got.Apply(&o, &exp); files != tt.files || o.Relays != got.Relays || (got.Relays > 0 && o.RelayMaxConns != got.PerRelay) {
			t.Errorf("%s: Apply: %d files, options %d relays of %d; want %d files", tt.name, files, o.Relays, o.RelayMaxConns, tt.files)
		}
	}
	exp := experiment.Default()
	exp.Testbed.Provider, exp.Schedule.Testers, exp.Controller.Relays = experiment.ProviderJoin, 5000, ptr(2)
	_, err := PlanRelays(&exp, 1024)
	if errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), "2 relays of 2500 testers each") || errs.Hint(err) != "use at least 6 relays, or leave controller.relays out" {
		t.Errorf("two relays for 5000 testers at 1024 files: %v (hint %q), want bad usage asking for 6", err, errs.Hint(err))
	}
}
