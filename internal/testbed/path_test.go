package testbed

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/transport"
)

// TestChoose maps each testbed and experiment (provider × relays asked ×
// controller.transport × the open-file limit) to the path its testers took
// before the choice was made in one place: local testers dial, ssh testers
// speak over their sessions, join and slurm testers join; relays none when
// asked for none, or by default while the controller may open a file per
// tester, or for local and ssh testers; N sharing the testers when asked
// for N, with an eighth to spare; by default as many as the testers need
// at the hard limit (less relay.Reserve, 64) each; UDP samples exactly when
// controller.transport is udp. files is what the controller then keeps
// open itself (OwnFiles).
func TestChoose(t *testing.T) {
	t.Parallel()
	ptr := func(n int) *int { return &n }
	dial, join, att := transport.Dial, transport.Join, transport.Attached
	for _, tt := range []struct {
		name      string
		provider  string
		testers   int
		asked     *int
		transport string
		hard      uint64
		want      Path
		files     uint64
	}{
		{"join, asked none", experiment.ProviderJoin, 5000, ptr(0), "", 1024, Path{Reach: join}, 32 + 5000},
		{"join, asked two", experiment.ProviderJoin, 100, ptr(2), "", 1024, Path{join, 2, 50 + 6 + 1, false}, 32 + 4},
		{"join, default within the limit", experiment.ProviderJoin, 100, nil, "", 1024, Path{Reach: join}, 32 + 100},
		{"join, default past the limit", experiment.ProviderJoin, 5000, nil, "", 1024, Path{join, 6, 834 + 104 + 1, false}, 32 + 12}, // 1024 - 64 = 960 each: 6 relays of 834
		{"join, udp, past the limit", experiment.ProviderJoin, 5000, nil, experiment.TransportUDP, 1024, Path{join, 6, 834 + 104 + 1, true}, 32 + 12},
		{"slurm, default past the limit", experiment.ProviderSlurm, 2000, nil, "", 1024, Path{join, 3, 667 + 83 + 1, false}, 32 + 6},
		{"slurm, udp", experiment.ProviderSlurm, 10, nil, experiment.TransportUDP, 1024, Path{Reach: join, UDPSamples: true}, 32 + 10},
		{"local testers dial no relay", experiment.ProviderLocal, 5000, nil, "", 1024, Path{Reach: dial}, 32 + 4*5000},
		{"local, asked two", experiment.ProviderLocal, 10, ptr(2), experiment.TransportTCP, 1024, Path{dial, 2, 5 + 0 + 1, false}, 32 + 4*10 + 4 - 10},
		{"local, udp", experiment.ProviderLocal, 10, nil, experiment.TransportUDP, 1024, Path{Reach: dial, UDPSamples: true}, 32 + 40},
		{"ssh testers dial no relay", experiment.ProviderSSH, 5000, nil, "", 1024, Path{Reach: att}, 32 + 5000},
		{"ssh, udp", experiment.ProviderSSH, 10, nil, experiment.TransportUDP, 1 << 20, Path{Reach: att, UDPSamples: true}, 32 + 10},
	} {
		exp := experiment.Default()
		exp.Testbed.Provider, exp.Schedule.Testers, exp.Controller.Relays = tt.provider, tt.testers, tt.asked
		exp.Controller.Transport = tt.transport
		got, err := Choose(&exp, tt.hard)
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
			continue
		}
		if files := OwnFiles(&exp, got.Relays); files != tt.files {
			t.Errorf("%s: the controller keeps %d files open; want %d", tt.name, files, tt.files)
		}
		if p := PathOf(&exp); p.Reach != got.Reach || p.UDPSamples != got.UDPSamples || p.Relays != 0 {
			t.Errorf("%s: PathOf %+v disagrees with Choose %+v", tt.name, p, got)
		}
	}
	exp := experiment.Default()
	exp.Testbed.Provider, exp.Schedule.Testers, exp.Controller.Relays = experiment.ProviderJoin, 5000, ptr(2)
	_, err := Choose(&exp, 1024)
	if errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), "2 relays of 2500 testers each") || errs.Hint(err) != "use at least 6 relays, or leave controller.relays out" {
		t.Errorf("two relays for 5000 testers at 1024 files: %v (hint %q), want bad usage asking for 6", err, errs.Hint(err))
	}
}

// TestTesterCommandsFollowReach: each provider starts (or, for join, tells
// the user to start) its testers with the flag of the reach the run chose
// for it, and with no other reach's flag: the command line and the
// controller cannot disagree on how a tester reaches it.
func TestTesterCommandsFollowReach(t *testing.T) {
	t.Parallel()
	s := Spec{Slot: 3, Controller: "127.0.0.1:9000"}
	for _, tt := range []struct {
		provider, command string
	}{
		{experiment.ProviderLocal, strings.Join(localArgs(s, ""), " ")},
		{experiment.ProviderSSH, testerCommand("/w", "run", s, "", "")},
		{experiment.ProviderSlurm, slurmScript},
	} {
		want := ReachOf(tt.provider)
		for _, r := range []transport.Reach{transport.Dial, transport.Join, transport.Attached} {
			if has := strings.Contains(tt.command, " "+r.Flag()+" "); has != (r == want) {
				t.Errorf("%s testers: reach %v, yet their command holds %s: %v", tt.provider, want, r.Flag(), has)
			}
		}
	}
}
