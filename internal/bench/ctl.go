package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/rundir"
)

// ControllerOptions configure the controller benchmark.
type ControllerOptions struct {
	Testers    int           // tester sessions to open
	Rate       float64       // samples/s, all testers together
	Duration   time.Duration // how long they send
	Transport  string        // controller.transport: "tcp" or "udp" ("" = tcp)
	Mode       string        // controller.mode: "disk" or "memory" ("" = disk)
	Relays     int           // controller.relays (< 0: left out, the controller decides)
	Exe        string        // the diperf binary run as the controller
	Dir        string        // where the experiment and the run go ("" = a temporary directory)
	Keep       bool          // keep Dir afterwards
	CPUProfile string        // write the controller's CPU profile here ("" = none)
	// TestersPerProcess caps the tester sessions one generator process
	// holds (each is an open file): past it, the sessions are spread
	// over child processes (`diperf bench controller-gen`). 0 = no cap.
	TestersPerProcess int
	// RunArgs are more arguments of the controller's `diperf run` (e.g.
	// --ui off).
	RunArgs []string
	// command is the diperf subcommand run as the controller (nil:
	// `diperf run`; ControllerSSH's is NullRun).
	command []string
	// Attach, when set, is called once the controller runs, before the
	// testers connect, with the path of its log (its stderr); the stop it
	// returns is called when the last session ended. `diperf bench
	// dashboard` opens its browsers there.
	Attach func(ctx context.Context, log string) (stop func(), err error)
}

// ControllerResult is the JSON line `diperf bench controller` ends with.
type ControllerResult struct {
	Bench     string  `json:"bench"`
	Transport string  `json:"transport"`
	Mode      string  `json:"mode"`
	Testers   int     `json:"testers"`
	Rate      float64 `json:"rate"`
	DurationS float64 `json:"duration_s"`
	Sources   int     `json:"source_addresses"`
	// ConnectS is how long the testers took to connect and prove
	// themselves (64 handshakes at a time, the controller's cap).
	ConnectS float64 `json:"connect_s"`
	Sent     uint64  `json:"sent"`     // samples the generator wrote to its connections
	Acked    uint64  `json:"acked"`    // samples the controller acknowledged as spooled
	Received uint64  `json:"received"` // samples the controller counted (testers.csv)
	Stored   uint64  `json:"stored"`   // rows of samples.parquet
	Lost     int64   `json:"lost"`     // sent − stored
	// ControllerLost is the loss the controller itself reported
	// (testers.csv samples_lost, summed: produced − received); on UDP
	// DatagramsLost are the datagrams behind it (udp_datagrams_lost).
	ControllerLost uint64 `json:"controller_lost"`
	DatagramsLost  uint64 `json:"udp_datagrams_lost,omitempty"`
	// SamplesPerS is stored / duration: what the controller took in while
	// the testers sent (see DrainS for how far behind it was).
	SamplesPerS float64 `json:"samples_per_s"`
	// DrainS is how long after the last sample was written the last
	// tester's session ended: the controller's lag at the end.
	DrainS float64 `json:"drain_s"`
	// ControllerRSSMB is the controller's peak resident memory while
	// testers were connected (sampled each second), summed over its
	// process tree (`diperf run` and every process under it, such as
	// relay workers); ControllerHWMMB the peak of `diperf run` alone over
	// its whole life, the analysis at the end included.
	ControllerRSSMB float64 `json:"controller_rss_mb"`
	ControllerHWMMB float64 `json:"controller_hwm_mb"`
	// ControllerProcesses is the most processes seen in the controller's
	// tree at once.
	ControllerProcesses int `json:"controller_processes"`
	// RSSAt1MinMB is the controller tree's RSS at minute 1 of the
	// sending (the median of its samples 50-70 s after the sending began;
	// 0 and omitted when the sending lasts less than 70 s), RSSEndMB at
	// its end (the median over its last 20 s), and RSSGrowth (end − at 1
	// min) / at 1 min: whether memory grows with the run's length.
	RSSAt1MinMB float64  `json:"rss_at_1min_mb,omitempty"`
	RSSEndMB    float64  `json:"rss_end_mb"`
	RSSGrowth   *float64 `json:"rss_growth,omitempty"`
	// ControllerCPUS is the controller tree's CPU time (user+system) from
	// its start to the end of the last session; ControllerTotalCPUS is
	// `diperf run`'s with its reaped children, writing the run directory
	// and analysing it included.
	ControllerCPUS      float64 `json:"controller_cpu_s"`
	ControllerTotalCPUS float64 `json:"controller_total_cpu_s"`
	// SendCPUS is the controller tree's CPU time from the start of the
	// sending to the end of the last session: the run's steady state,
	// without the connections before or the analysis after.
	SendCPUS float64 `json:"controller_send_cpu_s"`
	// BytesPerTester is (tree RSS with every tester connected, idle −
	// tree RSS once the slots exist, before any connection) / testers:
	// what a connection costs the controller (its buffers, goroutine,
	// session, relay).
	BytesPerTester float64 `json:"bytes_per_tester"`
	BaseRSSMB      float64 `json:"base_rss_mb"` // the controller before any connection
	// GeneratorCPUS is the generator's CPU until the last session ended:
	// this process's and its generator processes'.
	GeneratorCPUS      float64 `json:"generator_cpu_s"`
	GeneratorProcesses int     `json:"generator_processes"`
	FailedSessions     int64   `json:"failed_sessions"`
	FirstError         string  `json:"first_error,omitempty"`
	Dir                string  `json:"dir,omitempty"`
}

// Controller runs `diperf run` of a join experiment for o.Testers testers
// as a child process, opens o.Testers tester sessions to it that send
// o.Rate samples/s in total for o.Duration, and measures what the
// controller received, stored, and what it cost.
func Controller(ctx context.Context, o ControllerOptions, progress io.Writer) (*ControllerResult, error) {
	r := &ControllerResult{Bench: "controller", Transport: o.Transport, Mode: o.Mode, Testers: o.Testers,
		Rate: o.Rate, DurationS: o.Duration.Seconds(), Sources: SourceCount(o.Testers)}
	var secret credential.Token
	err := withController(o, &r.Dir, func(dir string) (args, env []string, err error) {
		secret, err = writeBenchFiles(dir, o)
		return o.RunArgs, nil, err
	}, func(ch *child, dir string) error {
		if err := ch.loadIt(ctx, o, secret, r, progress); err != nil {
			return err
		}
		if err := ch.wait(); err != nil {
			return err
		}
		fillController(r, ch, filepath.Join(dir, "run"))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// withController runs a bench's one controller child: a directory for it
// (kept in *kept with o.Keep, else removed at the end), the files prepare
// writes there with the arguments and environment it returns, the
// controller started on them, then use while it runs; the controller is
// killed when use returns, however it ended.
func withController(o ControllerOptions, kept *string, prepare func(dir string) (args, env []string, err error),
	use func(ch *child, dir string) error) error {
	dir, err := benchDir(o)
	if err != nil {
		return err
	}
	if o.Keep {
		*kept = dir
	} else {
		defer os.RemoveAll(dir)
	}
	args, env, err := prepare(dir)
	if err != nil {
		return err
	}
	ch, err := startController(o.Exe, o.CPUProfile, dir, o.command, args, env...)
	if err != nil {
		return err
	}
	defer ch.kill()
	return use(ch, dir)
}

func benchDir(o ControllerOptions) (string, error) {
	if o.Dir != "" {
		return o.Dir, os.MkdirAll(o.Dir, 0o755)
	}
	return os.MkdirTemp("", "diperf-bench-controller-")
}

// writeBenchFiles writes the run's token, its controller key and the
// join experiment.
func writeBenchFiles(dir string, o ControllerOptions) (credential.Token, error) {
	tok, key, err := credential.New([]string{"bench-controller"}, time.Now().Add(o.Duration+24*time.Hour))
	if err != nil {
		return tok, err
	}
	token := filepath.Join(dir, "token")
	if err := credential.WritePair(token, credential.KeyPathFor(token), tok, key); err != nil {
		return tok, err
	}
	// Every tester may join at once, and runs until it says Done: its
	// duration covers the connection phase as well as the sending.
	exp := fmt.Sprintf(`name: bench-controller
client: {exec: ["true"]}
testbed: {provider: join, listen: "127.0.0.1:0", token_file: %q, wait: 30m}
schedule: {testers: %d, tester_start_interval: 0s, tester_duration: %ds, client_interval: 0s}
sync: {transport: tcp}
controller: {mode: %q, transport: %q%s}
`, token, o.Testers, int(o.Duration.Seconds())+1800, cmp.Or(o.Mode, "disk"), cmp.Or(o.Transport, "tcp"), relaysKey(o.Relays))
	return tok, os.WriteFile(filepath.Join(dir, "experiment.yaml"), []byte(exp), 0o644)
}

// relaysKey is the controller section's relays key for n (none when
// negative).
func relaysKey(n int) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprintf(", relays: %d", n)
}

// child is the controller under test.
type child struct {
	cmd    *exec.Cmd
	dir    string // the run directory
	log    string // its stderr
	exited chan struct{}
	err    error // its exit, once exited is closed

	mu       sync.Mutex
	peakRSS  uint64
	maxProcs int
	rss      rssSeries     // tree RSS during the sending
	cpuEnd   time.Duration // tree CPU at the end of the last session
}

// startController starts exe's `diperf run` (or the subcommand command)
// of dir's experiment (with more arguments args), with env added to its
// environment and its CPU profile written to cpuProfile ("" = none).
func startController(exe, cpuProfile, dir string, command, args []string, env ...string) (*child, error) {
	ch := &child{dir: filepath.Join(dir, "run"), log: filepath.Join(dir, "controller.log"), exited: make(chan struct{})}
	logf, err := os.Create(ch.log)
	if err != nil {
		return nil, err
	}
	if command == nil {
		command = []string{"run"}
	}
	ch.cmd = exec.Command(exe, slices.Concat(command, []string{filepath.Join(dir, "experiment.yaml"), "--out", ch.dir}, args)...)
	ch.cmd.Stdout, ch.cmd.Stderr = logf, logf
	ch.cmd.Env = append(os.Environ(), env...)
	if cpuProfile != "" {
		ch.cmd.Env = append(ch.cmd.Env, "DIPERF_CPUPROFILE="+cpuProfile)
	}
	if err := ch.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("bench: starting the controller: %w", err)
	}
	go func() {
		ch.err = ch.cmd.Wait()
		logf.Close()
		close(ch.exited)
	}()
	return ch, nil
}

// alive is nil while the child runs, and its exit with its log after.
func (ch *child) alive() error {
	select {
	case <-ch.exited:
		return fmt.Errorf("bench: the controller exited (%v):\n%s", ch.err, tail(ch.log, 20))
	default:
		return nil
	}
}

func (ch *child) kill() {
	if ch.alive() == nil {
		_ = ch.cmd.Process.Kill()
		<-ch.exited
	}
}

// wait waits for the controller to write its run directory and exit.
func (ch *child) wait() error {
	<-ch.exited
	if ch.err != nil {
		return fmt.Errorf("bench: the controller failed (%v):\n%s", ch.err, tail(ch.log, 20))
	}
	return nil
}

// sampleTree records the controller tree's memory and size now and
// returns its usage.
func (ch *child) sampleTree() treeUsage {
	u := treeOf(ch.cmd.Process.Pid)
	ch.mu.Lock()
	ch.peakRSS = max(ch.peakRSS, u.RSS)
	ch.rss.add(time.Now(), u.RSS)
	ch.maxProcs = max(ch.maxProcs, u.Procs)
	ch.mu.Unlock()
	return u
}

// sample records the controller tree's usage now and returns its RSS.
func (ch *child) sample() uint64 { return ch.sampleTree().RSS }

// markRSS has the tree's RSS recorded from start on for d (the progress
// samples it each second) and once more at start+d, until stop is called.
func (ch *child) markRSS(start time.Time, d time.Duration) (stop func()) {
	ch.mu.Lock()
	ch.rss = rssSeries{start: start, d: d}
	ch.mu.Unlock()
	t := time.AfterFunc(time.Until(start.Add(d)), func() { ch.sample() })
	return func() { t.Stop() }
}

// fillController completes r from the child's exit and its run directory.
func fillController(r *ControllerResult, ch *child, run string) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	r.ControllerRSSMB = mb(ch.peakRSS)
	r.ControllerProcesses = ch.maxProcs
	at1, end := ch.rss.at1Min(), ch.rss.end()
	r.RSSAt1MinMB, r.RSSEndMB, r.RSSGrowth = mb(at1), mb(end), growth(at1, end)
	r.ControllerCPUS = round(ch.cpuEnd.Seconds(), 2)
	if ru, ok := ch.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.ControllerHWMMB = round(float64(ru.Maxrss)/1024, 1)
		r.ControllerTotalCPUS = round(tv(ru.Utime)+tv(ru.Stime), 2)
	}
	if ts, err := rundir.ReadTesters(run); err == nil {
		for _, t := range ts {
			r.Received += t.Received
			r.ControllerLost += t.Lost()
			r.DatagramsLost += t.UDPLost
		}
	}
	if n, err := rundir.CountSamples(run); err == nil {
		r.Stored = uint64(n)
	}
	r.Lost = int64(r.Sent) - int64(r.Stored)
	r.SamplesPerS = round(float64(r.Stored)/r.DurationS, 0)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func mb(b uint64) float64 { return round(float64(b)/(1<<20), 1) }
