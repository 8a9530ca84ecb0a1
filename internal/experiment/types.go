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
	// Controller says where the controller listens and what it tells
	// testers to dial.
	Controller Controller `yaml:"controller"`
	// FailurePolicy says what a lost tester does to the run: abort,
	// continue (the default) or tolerate (up to TolerateLost).
	FailurePolicy string `yaml:"failure_policy"`
	// TolerateLost is the share of testers that may fail before a
	// "tolerate" run aborts ("10%", or 10).
	TolerateLost Percent `yaml:"tolerate_lost"`

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

	// ssh
	HostsFile      string            `yaml:"hosts_file"`      // more candidate hosts, one per line (# comments)
	User           string            `yaml:"user"`            // login name ("" = the user running diperf)
	IdentityFile   string            `yaml:"identity_file"`   // private key ("" = the ssh agent, then ~/.ssh/id_*)
	KnownHosts     string            `yaml:"known_hosts"`     // known_hosts file ("" = ~/.ssh/known_hosts)
	TrustNewHosts  bool              `yaml:"trust_new_hosts"` // add unknown hosts' keys to known_hosts (never a changed key)
	MinHosts       int               `yaml:"min_hosts"`       // usable hosts needed to run (0 = all of them)
	KeepFiles      bool              `yaml:"keep_files"`      // leave deployed files on the hosts
	WorkDir        string            `yaml:"work_dir"`        // where files go on a host ("" = DefaultWorkDir)
	ConnectTimeout Duration          `yaml:"connect_timeout"` // per-host check timeout
	TesterBinaries map[string]string `yaml:"tester_binaries"` // "os/arch" -> diperf binary for hosts unlike this one

	// slurm
	Partition  string   `yaml:"partition"`   // sbatch --partition ("" = the cluster's default)
	Account    string   `yaml:"account"`     // sbatch --account
	TimeLimit  Duration `yaml:"time_limit"`  // sbatch --time (0 = the run's length plus a margin)
	SbatchArgs []string `yaml:"sbatch_args"` // more sbatch arguments, as given

	// join (and slurm, whose tasks join)
	Listen    string   `yaml:"listen"`     // where joining testers reach the controller (HOST:PORT)
	TokenFile string   `yaml:"token_file"` // the run's secret, shared with the testers (made if missing)
	Wait      Duration `yaml:"wait"`       // how long to wait for testers to join
}

// Controller says where the controller listens and what address testers
// are told (the --listen and --advertise flags win over these).
type Controller struct {
	Listen    string `yaml:"listen"`    // HOST:PORT to listen on ("" = 127.0.0.1:0, or testbed.listen for join)
	Advertise string `yaml:"advertise"` // HOST or HOST:PORT testers dial ("" = the listen address)
}

// Schedule says how many testers run, how they are staggered and how often
// each one runs the client.
type Schedule struct {
	Testers             int      `yaml:"testers"`               // total number of testers
	TesterStartInterval Duration `yaml:"tester_start_interval"` // delay between tester starts
	TesterDuration      Duration `yaml:"tester_duration"`       // how long each tester runs
	ClientInterval      Duration `yaml:"client_interval"`       // pause between client runs; 0 = back-to-back
	SynchronizedStart   bool     `yaml:"synchronized_start"`    // launch all testers first, start each at a global time
	// ClientsPerTester is how many clients each tester runs at once, each
	// its own closed loop (client_interval between its call starts) with
	// its own client index in the samples.
	ClientsPerTester int `yaml:"clients_per_tester"`
	// ClientStartInterval staggers a tester's clients: client j starts
	// j × client_start_interval after the tester's start (0 = together).
	ClientStartInterval Duration `yaml:"client_start_interval"`
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
