package experiment

import "time"

// Testbed providers.
const (
	ProviderLocal = "local" // testers run as processes on this machine
	ProviderSSH   = "ssh"   // testers run on hosts reached over ssh
	ProviderSlurm = "slurm" // testers run as slurm jobs
	ProviderJoin  = "join"  // testers started elsewhere join the controller
)

// Defaults for what an experiment file leaves out.
const (
	DefaultName                = "experiment"     // name
	DefaultClientTimeout       = 30 * time.Second // client.timeout
	DefaultKillGrace           = 2 * time.Second  // client.kill_grace
	MaxKillGrace               = time.Minute      // client.kill_grace at most (protocol.MaxKillGrace)
	DefaultProvider            = ProviderLocal    // testbed.provider
	DefaultTestersPerHost      = 1                // testbed.testers_per_host
	DefaultTesters             = 1                // schedule.testers
	DefaultTesterStartInterval = time.Second      // schedule.tester_start_interval
	DefaultTesterDuration      = 60 * time.Second // schedule.tester_duration
	DefaultClientInterval      = time.Second      // schedule.client_interval
	DefaultClientsPerTester    = 1                // schedule.clients_per_tester
	DefaultSyncInterval        = 5 * time.Minute  // sync.interval
	DefaultQuantum             = time.Second      // analysis.quantum
	DefaultSyncTransport       = SyncUDP          // sync.transport
	DefaultSyncProbes          = 16               // sync.probes
	MaxSyncProbes              = 64               // sync.probes at most
	MaxClockDriftPPM           = 1000             // testbed.clock_drift_ppm at most
	DefaultConnectTimeout      = 10 * time.Second // testbed.connect_timeout
	DefaultJoinWait            = 2 * time.Minute  // testbed.wait
	DefaultWorkDir             = ".diperf"        // testbed.work_dir, relative to the login's home
	DefaultFailurePolicy       = PolicyContinue   // failure_policy
)

// Failure policies: what a lost tester does to the run.
const (
	PolicyAbort    = "abort"    // the first failed tester stops the run (exit 1)
	PolicyContinue = "continue" // failed testers are reported; the run goes on
	PolicyTolerate = "tolerate" // go on while at most tolerate_lost of the testers failed, else abort
)

// Controller modes (controller.mode).
const (
	ModeDisk   = "disk"   // spool samples to disk as they come (the default)
	ModeMemory = "memory" // keep samples in memory, write them at the end
)

// controller.memory_limit_mb: its default and its most (1 TiB).
const (
	DefaultMemoryLimitMB = 1024
	MaxMemoryLimitMB     = 1 << 20
)

// MaxRelays caps controller.relays.
const MaxRelays = 256

// Sample transports (controller.transport).
const (
	TransportTCP = "tcp" // sample batches as frames on the tester's connection (the default)
	TransportUDP = "udp" // sample batches as datagrams; loss counted, never resent
)

// Time-server transports.
const (
	SyncUDP = "udp" // the default
	SyncTCP = "tcp" // for networks that drop UDP
)

// MinQuantum is the smallest analysis.quantum Validate accepts.
const MinQuantum = 10 * time.Millisecond

// Upper bounds Validate puts on an experiment, so that no setting can
// overflow a time computation or fork this machine to a halt.
const (
	// MaxDuration bounds every duration of the file, and the ramp-ups
	// ((testers − 1) × tester_start_interval, (clients_per_tester − 1) ×
	// client_start_interval): 30 days.
	MaxDuration = 30 * 24 * time.Hour
	// MaxTesters bounds schedule.testers and testbed.testers_per_host.
	MaxTesters = 1_000_000
	// MaxLocalTesters bounds schedule.testers on the local provider, where
	// every tester is a process of this machine.
	MaxLocalTesters = 10_000
	// MaxClientsPerTester bounds schedule.clients_per_tester (the same
	// bound as protocol.MaxClientsPerTester, which testers check).
	MaxClientsPerTester = 100_000
	// MaxLaunchRate is how many testers the controller starts per second
	// at most, whatever tester_start_interval says (0 = as fast as that).
	MaxLaunchRate = 200
)

// Default returns an experiment holding only the defaults. It has no client
// command, so it does not pass Validate until Client.Exec is set.
func Default() Experiment {
	return Experiment{
		Name:   DefaultName,
		Client: Client{Timeout: Duration(DefaultClientTimeout), KillGrace: Duration(DefaultKillGrace)},
		Testbed: Testbed{Provider: DefaultProvider, TestersPerHost: DefaultTestersPerHost,
			ConnectTimeout: Duration(DefaultConnectTimeout)},
		Schedule: Schedule{
			Testers:             DefaultTesters,
			TesterStartInterval: Duration(DefaultTesterStartInterval),
			TesterDuration:      Duration(DefaultTesterDuration),
			ClientInterval:      Duration(DefaultClientInterval),
			ClientsPerTester:    DefaultClientsPerTester,
		},
		Sync:          Sync{Interval: Duration(DefaultSyncInterval), Transport: DefaultSyncTransport, Probes: DefaultSyncProbes},
		Analysis:      Analysis{Quantum: Duration(DefaultQuantum)},
		FailurePolicy: DefaultFailurePolicy,
	}
}
