package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// Slurm starts the run's testers as one Slurm job array, one task per
// tester: task i runs `diperf tester --join ADDR --token-file F --slot i`
// and joins the controller like any tester. The cluster is assumed to
// share a file system with this machine (as DiPerF's cluster testbed): the
// diperf binary, the deploy files and the run directory, which holds the
// token file and the task logs, are read by the tasks where they are here.
// One poller asks squeue about the whole array every PollEvery.
type Slurm struct {
	Partition  string        // sbatch --partition ("" = the cluster's default)
	Account    string        // sbatch --account
	TimeLimit  time.Duration // sbatch --time (0 = the run's length plus a margin)
	SbatchArgs []string      // more sbatch arguments, appended as given
	Deploy     []string      // files the clients need: they must exist (shared file system)
	Wait       time.Duration // how long a task may take to start and join
	Binary     string        // the diperf binary the tasks run ("" = this executable)
	PollEvery  time.Duration // how often squeue is asked (0 = DefaultSlurmPoll)

	bin, dir, token, script string
	length                  time.Duration
	q                       *slurmQueue // the submitted array; nil before StartAll
	mu                      sync.Mutex
}

var (
	_ Testbed      = (*Slurm)(nil)
	_ BatchStarter = (*Slurm)(nil)
)

// DefaultSlurmPoll is how often the slurm testbed asks squeue about its
// job array.
const DefaultSlurmPoll = 500 * time.Millisecond

// slurmMargin is added to the run's length for the default time limit:
// room for the tasks to wait in the queue, join and hand in their last
// samples.
const slurmMargin = 10 * time.Minute

// slurmTools are the Slurm commands the testbed runs.
var slurmTools = []string{"sbatch", "squeue", "scancel"}

// NewSlurm returns the slurm testbed for an experiment's testbed section.
func NewSlurm(tb experiment.Testbed) *Slurm {
	w := tb.Wait.D()
	if w <= 0 {
		w = experiment.DefaultJoinWait
	}
	return &Slurm{Partition: tb.Partition, Account: tb.Account, TimeLimit: tb.TimeLimit.D(),
		SbatchArgs: tb.SbatchArgs, Deploy: tb.Deploy, Wait: w}
}

// Prepare checks that Slurm's commands are on PATH and that the binary and
// every deploy file exist, then writes the run's token file (private to
// its owner) and the batch script into the run directory.
func (s *Slurm) Prepare(_ context.Context, p Plan) (Ready, error) {
	if err := checkSlurmTools(); err != nil {
		return Ready{}, err
	}
	bin, err := s.binary()
	if err != nil {
		return Ready{}, err
	}
	if err := checkShared(bin, s.Deploy); err != nil {
		return Ready{}, err
	}
	dir, err := filepath.Abs(filepath.Join(p.Dir, SlurmDir))
	if err != nil {
		return Ready{}, fmt.Errorf("slurm testbed: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Ready{}, fmt.Errorf("slurm testbed: %w", err)
	}
	s.bin, s.dir, s.length = bin, dir, p.Length
	s.token = filepath.Join(dir, "token")
	s.script = filepath.Join(dir, "testers.sbatch")
	if err := os.WriteFile(s.script, []byte(slurmScript), 0o755); err != nil {
		return Ready{}, fmt.Errorf("slurm testbed: writing the batch script: %w", err)
	}
	return Ready{JoinWait: s.Wait}, nil
}

// SlurmDir is the folder of the run directory where the slurm testbed
// keeps its batch script, token file (removed at cleanup), task list, the
// job id of the array (job) and Slurm's own output of each task
// (task-N.out).
const SlurmDir = "slurm"

// checkSlurmTools says which Slurm commands are missing from PATH.
func checkSlurmTools() error {
	var missing []string
	for _, t := range slurmTools {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return errs.Usage(fmt.Errorf("the slurm provider needs %s on PATH; not found: %s",
			strings.Join(slurmTools, ", "), strings.Join(missing, ", ")),
			"run diperf on a Slurm submit host (where sbatch works), or install Slurm's client commands (Debian: slurm-client)")
	}
	return nil
}

// binary returns the absolute path of the diperf binary the tasks run.
func (s *Slurm) binary() (string, error) {
	if s.Binary != "" {
		return filepath.Abs(s.Binary)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("slurm testbed: finding the diperf binary: %w", err)
	}
	return exe, nil
}

// checkShared checks that the binary and the deploy files exist here: the
// tasks read them at the same paths, on a file system shared with the nodes.
func checkShared(bin string, deploy []string) error {
	var missing []error
	if _, err := os.Stat(bin); err != nil {
		missing = append(missing, fmt.Errorf("the diperf binary: %w", err))
	}
	for _, f := range deploy {
		if _, err := os.Stat(f); err != nil {
			missing = append(missing, fmt.Errorf("testbed.deploy: %w", err))
		}
	}
	if len(missing) > 0 {
		return errs.Usage(errors.Join(missing...),
			"the slurm provider assumes a file system shared with the nodes: the binary, the deploy files (relative to the directory diperf runs in) and the run directory must be there, at the same paths")
	}
	return nil
}

// Start is never called for a BatchStarter.
func (s *Slurm) Start(context.Context, Spec) (Handle, error) {
	return nil, errors.New("slurm testbed: testers are started together (StartAll)")
}

// StartAll writes the token and the task list and submits one job array,
// task i for specs[i]; it returns a handle per task, watched by one
// squeue poller.
func (s *Slurm) StartAll(ctx context.Context, specs []Spec) ([]Handle, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	if err := writePrivate(s.token, specs[0].Token); err != nil {
		return nil, fmt.Errorf("slurm testbed: writing the token file: %w", err)
	}
	list, err := taskList(specs)
	if err != nil {
		return nil, fmt.Errorf("slurm testbed: %w", err)
	}
	tasks := filepath.Join(s.dir, "tasks")
	if err := os.WriteFile(tasks, []byte(list), 0o644); err != nil {
		return nil, fmt.Errorf("slurm testbed: writing the task list: %w", err)
	}
	out, err := runSlurm(ctx, "sbatch", s.sbatchArgs(len(specs), specs[0].Controller, tasks)...)
	if err != nil {
		return nil, fmt.Errorf("slurm testbed: submitting the job array: %w", err)
	}
	job, err := parseJobID(out)
	if err != nil {
		return nil, fmt.Errorf("slurm testbed: %w", err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "job"), []byte(job+"\n"), 0o644); err != nil {
		_, _ = runSlurm(context.Background(), "scancel", job)
		return nil, fmt.Errorf("slurm testbed: writing the job id: %w", err)
	}
	q := newSlurmQueue(job, len(specs), s.dir, s.pollEvery())
	s.mu.Lock()
	s.q = q
	s.mu.Unlock()
	go q.poll()
	hs := make([]Handle, len(specs))
	for i := range hs {
		hs[i] = q.tasks[i]
	}
	return hs, nil
}

func (s *Slurm) pollEvery() time.Duration {
	if s.PollEvery > 0 {
		return s.PollEvery
	}
	return DefaultSlurmPoll
}

// sbatchArgs are the arguments of the one sbatch call: the array, its
// name, Slurm's output of each task, the limits, the user's own
// arguments, and the script with its own arguments.
func (s *Slurm) sbatchArgs(n int, addr, tasks string) []string {
	wd, _ := os.Getwd()
	a := []string{"--parsable", "--array=0-" + strconv.Itoa(n-1),
		"--job-name=diperf-" + filepath.Base(filepath.Dir(s.dir)),
		"--output=" + filepath.Join(s.dir, "task-%a.out"),
		"--ntasks=1", "--time=" + slurmTime(s.timeLimit())}
	if wd != "" {
		a = append(a, "--chdir="+wd)
	}
	if s.Partition != "" {
		a = append(a, "--partition="+s.Partition)
	}
	if s.Account != "" {
		a = append(a, "--account="+s.Account)
	}
	a = append(a, s.SbatchArgs...)
	return append(a, s.script, s.bin, addr, s.token, tasks)
}

// timeLimit is testbed.time_limit, or the run's length plus the join wait
// and a margin (an hour when the length is not known).
func (s *Slurm) timeLimit() time.Duration {
	switch {
	case s.TimeLimit > 0:
		return s.TimeLimit
	case s.length > 0:
		return s.length + s.Wait + slurmMargin
	}
	return time.Hour
}

// slurmTime formats d for sbatch --time as days-hours:minutes:seconds,
// rounded up to the second (Slurm rounds up to the minute).
func slurmTime(d time.Duration) string {
	sec := int64((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d-%02d:%02d:%02d", sec/86400, sec/3600%24, sec/60%60, sec%60)
}

// parseJobID reads sbatch --parsable's answer: "JOBID" or "JOBID;CLUSTER".
func parseJobID(out string) (string, error) {
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch answered %q, not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// writePrivate writes b to path, readable by its owner alone.
func writePrivate(path string, b []byte) error {
	_ = os.Remove(path) // a file left by an earlier attempt may have another mode
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// runSlurm runs a Slurm command and returns its standard output; a failure
// carries what it wrote on standard error.
func runSlurm(ctx context.Context, name string, args ...string) (string, error) {
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Cleanup cancels what is still pending at once, gives running tasks
// until ctx is done to end on their own, cancels the rest, and waits until
// squeue shows none of the array's tasks (at most slurmGoneWait); the
// token file is removed.
func (s *Slurm) Cleanup(ctx context.Context) error {
	defer os.Remove(s.token)
	s.mu.Lock()
	q := s.q
	s.mu.Unlock()
	if q == nil {
		return nil
	}
	return q.cleanup(ctx)
}
