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
	// Sensors, when set, links the run to a sensor mesh (docs/sensors.md):
	// at its end each tester host's bandwidth and latency to the target
	// are read from the mesh's directory into network.csv and clients.csv.
	Sensors *Sensors `yaml:"sensors,omitempty"`
	// Monitor lists pages scraped while the run goes (docs/monitor.md).
	Monitor []MonitorEndpoint `yaml:"monitor,omitempty"`
	// Thresholds are checks on the run's figures (docs/thresholds.md): a
	// failed one makes diperf run and diperf analyze exit with code 3.
	Thresholds []Threshold `yaml:"thresholds,omitempty"`
	// Search, when set, makes the run a capacity search against
	// service-level objectives (docs/search.md): the load moves in steps
	// chosen by the search; the schedule's duration bounds it.
	Search *Search `yaml:"search,omitempty"`

	file  string         // the file name given to Parse, for Validate's problems
	lines map[string]int // key path -> line in the file where it was set
	// recorded: read from a run directory (LoadRecorded), whose run was
	// made under the rules of its day; what only a new run is refused for
	// (an unknown $NAME in argv) is not checked.
	recorded bool
}

// Client is what each of a tester's clients runs per call: exactly one of
// an executable (exec), a built-in client (http, tcp, udp) or a
// persistent process told to make each call (persistent).
type Client struct {
	Exec       []string      `yaml:"exec,omitempty"`       // argv run once per call; Exec[0] is the program
	HTTP       *HTTPClient   `yaml:"http,omitempty"`       // built-in HTTP client
	TCP        *SocketClient `yaml:"tcp,omitempty"`        // built-in TCP client
	UDP        *SocketClient `yaml:"udp,omitempty"`        // built-in UDP request/response client
	Persistent []string      `yaml:"persistent,omitempty"` // argv of a long-lived client (docs/clients.md)
	Timeout    Duration      `yaml:"timeout"`              // a call taking longer is cut off and counted as a timeout
	// KillGrace is how long an exec or persistent client cut off (its
	// timeout, or the tester stopping) has after SIGTERM before SIGKILL
	// (0: SIGKILL at once); at most MaxKillGrace.
	KillGrace Duration `yaml:"kill_grace"`
}

// HTTPClient is the built-in HTTP client's request.
type HTTPClient struct {
	URL       string            `yaml:"url"`                  // http:// or https://; $DIPERF_TARGET is expanded
	Method    string            `yaml:"method,omitempty"`     // default GET
	Headers   map[string]string `yaml:"headers,omitempty"`    // sent in name order
	Body      string            `yaml:"body,omitempty"`       // request body
	BodyFile  string            `yaml:"body_file,omitempty"`  // or the body from this file (read at the start)
	KeepAlive *bool             `yaml:"keep_alive,omitempty"` // reuse connections (default true)
	Version   string            `yaml:"version,omitempty"`    // "1.1" (default) or "2"
	TLS       *TLS              `yaml:"tls,omitempty"`        // for https
	// Success lists the status codes that count as success: codes or
	// ranges, e.g. ["200-299", "404"] (default 200-299).
	Success []string `yaml:"success,omitempty"`
}

// TLS says how the HTTP client trusts the server.
type TLS struct {
	CAFile     string `yaml:"ca_file,omitempty"`     // PEM certificates to trust besides the system's (a test CA)
	ServerName string `yaml:"server_name,omitempty"` // name to verify ("" = the URL's host)
	Insecure   bool   `yaml:"insecure,omitempty"`    // do not verify the certificate at all
}

// SocketClient is the tcp or udp client's exchange.
type SocketClient struct {
	Address     string `yaml:"address"`                // HOST:PORT; $DIPERF_TARGET is expanded
	Send        string `yaml:"send,omitempty"`         // payload (YAML escapes such as "\r\n" work in double quotes)
	SendHex     string `yaml:"send_hex,omitempty"`     // or the payload in hex
	Expect      Expect `yaml:"expect,omitempty"`       // what a good reply is (nothing: tcp reads what comes, udp any datagram)
	ConnectOnly bool   `yaml:"connect_only,omitempty"` // tcp: a call is a connect alone
	KeepAlive   bool   `yaml:"keep_alive,omitempty"`   // tcp: reuse the connection between calls
}

// Expect says when a tcp or udp reply is complete and good.
type Expect struct {
	Bytes   string `yaml:"bytes,omitempty"`   // the reply starts with these bytes
	Length  int    `yaml:"length,omitempty"`  // the reply is this many bytes
	Pattern string `yaml:"pattern,omitempty"` // the reply matches this regular expression (RE2)
	// BytesHex is Bytes in hex, the counterpart of send_hex: the reply
	// starts with these bytes, any of them ≥ 0x80 (a DNS reply's flags).
	BytesHex string `yaml:"bytes_hex,omitempty"`
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
	TokenFile string   `yaml:"token_file"` // the testers' token (join: made with its key if missing; slurm: written by each run)
	Wait      Duration `yaml:"wait"`       // how long to wait for testers to join

	// Select, when set, chooses the hosts testers run on out of the
	// candidates by their network toward the target and their idle CPU
	// (ssh and local; docs/testbeds.md).
	Select *Select `yaml:"select,omitempty"`
}

// Controller says where the controller listens and what address testers
// are told (the --listen and --advertise flags win over these).
type Controller struct {
	Listen    string `yaml:"listen"`    // HOST:PORT to listen on ("" = 127.0.0.1:0, or testbed.listen for join)
	Advertise string `yaml:"advertise"` // HOST or HOST:PORT testers dial ("" = the listen address)
	// Mode is where the controller keeps the raw samples during the run:
	// ModeDisk (the default) spools them to the run directory as they
	// come, so that memory stays flat and a killed run can be recovered;
	// ModeMemory keeps them in memory and writes them at the end (no
	// spool writes: faster, for short runs; nothing to recover).
	Mode string `yaml:"mode"`
	// Relays is how many relay worker processes accept the testers'
	// connections for the controller, which then holds one Unix socket per
	// relay instead of one connection per tester (nil: as many as the
	// open-file limit needs, none when it allows a file per tester; 0:
	// none). For more testers than one process may open files.
	Relays *int `yaml:"relays"`
	// Transport is how testers send their sample batches: TransportTCP
	// (the default) as frames on their connection, every batch
	// acknowledged; TransportUDP as authenticated datagrams to one UDP
	// socket of the controller, never resent, the loss counted exactly
	// per tester (docs/design/014-udp-samples.md).
	Transport string `yaml:"transport"`
	// KeyFile is the controller's private key, the pair of the public key
	// that testbed.token_file carries (the join provider; "": the token
	// file's path with ".key" added). It stays on the controller's host:
	// testers are given the token file only (docs/design/017-trust-model.md).
	KeyFile string `yaml:"key_file"`
	// MemoryLimitMB is the most raw sample data, in MiB, ModeMemory keeps
	// in memory (0: 1024); past it the rest spills to the spool on disk,
	// as ModeDisk writes it, so that no tester can grow the controller
	// past it.
	MemoryLimitMB int `yaml:"memory_limit_mb,omitempty"`
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
	// Rate, when set, is the open model: calls start at this arrival rate
	// (calls/s) by whichever client of a tester is free, instead of each
	// client's closed loop. A number, or a mapping with stages.
	Rate *Rate `yaml:"rate,omitempty"`
}

// Rate is the open model's arrival rate. "rate: 500" is Target 500: a
// constant rate for the whole run.
type Rate struct {
	Target   float64 `yaml:"target,omitempty"`   // calls/s, constant (with no stages)
	Per      string  `yaml:"per,omitempty"`      // "run" (default: split evenly over the testers) or "tester"
	Arrivals string  `yaml:"arrivals,omitempty"` // "uniform" (default) or "poisson"
	Start    float64 `yaml:"start,omitempty"`    // calls/s at the start of the first stage (default 0)
	// Stages ramp the rate linearly from the previous stage's target (or
	// Start) to their own over their duration; after the last stage its
	// target holds until the tester's duration is over.
	Stages []Stage `yaml:"stages,omitempty"`
	// MaxLateness: a call that cannot start within this of its intended
	// start, every client being busy, is dropped and counted (default
	// client.timeout).
	MaxLateness Duration `yaml:"max_lateness,omitempty"`
}

// Stage is one stage of the open model's rate.
type Stage struct {
	Duration Duration `yaml:"duration"`
	Target   float64  `yaml:"target"` // calls/s at the stage's end
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
