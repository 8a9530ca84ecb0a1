package experiment

// Experiment is one experiment file, with defaults filled in for what the
// file leaves out.
type Experiment struct {
	Name     string   `yaml:"name"`     // used in the run directory name
	Target   string   `yaml:"target"`   // handed to clients as DIPERF_TARGET; may be empty
	Client   Client   `yaml:"client"`   // what each client run executes
	Testbed  Testbed  `yaml:"testbed"`  // where testers run
	Schedule Schedule `yaml:"schedule"` // how many testers, when and how long
	Sync     Sync     `yaml:"sync"`     // clock synchronization
	Analysis Analysis `yaml:"analysis"` // how the samples are summarized

	file  string         // the file name given to Parse, for Validate's problems
	lines map[string]int // key path -> line in the file where it was set
}

// Client is the command each tester runs, once per client run.
type Client struct {
	Exec    []string `yaml:"exec"`    // argv; Exec[0] is the program
	Timeout Duration `yaml:"timeout"` // a run taking longer is killed and counted failed
}

// Testbed says where testers run.
type Testbed struct {
	Provider       string   `yaml:"provider"`         // one of the Provider constants
	Hosts          []string `yaml:"hosts"`            // hosts to run testers on, for remote providers
	TestersPerHost int      `yaml:"testers_per_host"` // testers started on each host
	Deploy         []string `yaml:"deploy"`           // files to copy to each host before the run
	ClockSkew      Duration `yaml:"clock_skew"`       // test: inject clock offsets spread over ±this
	ClockDriftPPM  float64  `yaml:"clock_drift_ppm"`  // test: inject clock drifts spread over ±this
}

// Schedule says how many testers run, how they are staggered and how often
// each one runs the client.
type Schedule struct {
	Testers             int      `yaml:"testers"`               // total number of testers
	TesterStartInterval Duration `yaml:"tester_start_interval"` // delay between tester starts
	TesterDuration      Duration `yaml:"tester_duration"`       // how long each tester runs
	ClientInterval      Duration `yaml:"client_interval"`       // pause between client runs; 0 = back-to-back
	SynchronizedStart   bool     `yaml:"synchronized_start"`    // launch all testers first, start each at a global time
}

// Sync configures clock synchronization between controller and testers.
type Sync struct {
	Interval  Duration `yaml:"interval"`  // how often testers re-synchronize
	Server    string   `yaml:"server"`    // time server host:port; "" = the controller's own
	Transport string   `yaml:"transport"` // udp or tcp
	Probes    int      `yaml:"probes"`    // probes per sync burst; the shortest round trip wins
}

// Analysis configures how samples are summarized.
type Analysis struct {
	Quantum Duration `yaml:"quantum"` // width of one time bucket
}
