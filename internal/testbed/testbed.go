// Package testbed finds hosts and starts testers on them. A local run is a
// distributed run whose testbed is this machine: every provider starts the
// same tester, which then dials the controller and joins like any other.
// New picks the provider an experiment names.
package testbed

import (
	"context"
	"net"
	"time"
)

// Testbed is one provider of testers for one run. The controller calls
// Prepare once before the first tester, Start once per tester, and Cleanup
// once at the end (also after a failed Prepare).
type Testbed interface {
	// Prepare readies the testbed for the run: it checks the hosts and
	// what the clients need (deploy files), puts them in place where they
	// must be copied, and says where testers go.
	Prepare(ctx context.Context, p Plan) (Ready, error)
	// Start starts one tester on s.Host.
	Start(ctx context.Context, s Spec) (Handle, error)
	// Cleanup ends the run on the testbed: testers still running when ctx
	// is done are killed, and what Prepare put in place is removed (a
	// provider may be told to keep files).
	Cleanup(ctx context.Context) error
}

// Plan is what the run asks of its testbed.
type Plan struct {
	Testers int    // testers the run will start
	Dir     string // the run directory (exists); a provider may keep its own logs in it
	// Length is how long the run is planned to take, from the first
	// tester's start to the last one's end (0 = not known): a batch
	// system's time limit is derived from it.
	Length time.Duration
}

// Ready is where a prepared testbed starts testers.
type Ready struct {
	Hosts   []string // hosts ready for testers, in order of use
	PerHost int      // testers put on one host before the next is used (< 1: 1)
	// TimeOverTCP says the testbed carries its testers' clock syncs over
	// TCP to Spec.TimeServerTCP (e.g. forwarded through SSH): the
	// controller's own time server then serves TCP as well.
	TimeOverTCP bool
	// JoinWait bounds how long testers started by a BatchStarter may take
	// to join (0: the controller's join timeout).
	JoinWait time.Duration
	// Skipped names the candidate hosts the testbed left out, each with
	// its reason (unreachable, a changed key, no room): the controller
	// records one event host-skipped per entry.
	Skipped map[string]string
	// Notes are what the testbed did worth keeping in the run's events
	// (files uploaded, time syncs not forwarded): one testbed-note each.
	Notes []string
	// Shared says how the testers are shared over Hosts when a candidate
	// host was skipped or a host is not needed ("" otherwise): recorded
	// as an event testers-shared and shown on the progress output.
	Shared string
}

// HostFor returns the host of tester slot i: hosts take PerHost testers
// each in turn, and the turn comes round again when the run has more
// testers than that; "" when there is no host.
func (r Ready) HostFor(slot int) string {
	if len(r.Hosts) == 0 || slot < 0 {
		return ""
	}
	return r.Hosts[r.hostIndex(slot)]
}

// hostIndex is the index in r.Hosts of tester slot i's host (r.Hosts not
// empty, slot ≥ 0).
func (r Ready) hostIndex(slot int) int { return (slot / max(r.PerHost, 1)) % len(r.Hosts) }

// Local reports whether every host is this machine.
func (r Ready) Local() bool {
	for _, h := range r.Hosts {
		if !IsLocalHost(h) {
			return false
		}
	}
	return len(r.Hosts) > 0
}

// Spec says how to start one tester.
type Spec struct {
	Slot       int      // index by start order
	Host       string   // the host to start it on (Ready.HostFor)
	Controller string   // address the tester dials
	Token      []byte   // the tester's credential: a token's text (credential.Token.Encode)
	LogPath    string   // where the tester's own output goes ("" = discard)
	ExtraArgs  []string // more tester flags (e.g. test-only clock injection)
	// Attach serves a tester connection the testbed opened itself (the
	// run's Path.Reach is transport.Attached): the controller admits it
	// like a dialled one.
	Attach func(net.Conn)
	// TimeServerTCP is the controller's own TCP time server on this
	// machine (Ready.TimeOverTCP; "" when the run uses another server).
	TimeServerTCP string
}

// BatchStarter is a testbed that starts every tester at once (a Slurm job
// array; testers that join from anywhere) rather than one by one: the
// controller calls StartAll instead of Start, with one Spec per slot, and
// keeps the ramp-up by giving each tester a planned start time. Testers
// may then join in any order, and late.
type BatchStarter interface {
	StartAll(ctx context.Context, specs []Spec) ([]Handle, error)
}

// Handle is one started tester process.
type Handle interface {
	Host() string // host it runs on
	PID() int     // its process id on that host
	Wait() error  // blocks until it exits; nil for exit status 0
	Kill() error  // kills it at once
}

// SecretFD is the file descriptor on which a local tester reads its
// token (diperf tester --secret-fd): an inherited pipe that holds the
// token's text and then ends. The environment and argv are never used: a client
// can read its tester's under /proc (/proc/PPID/environ keeps the initial
// environment even after unsetenv).
const SecretFD = 3

// SharedWait is a Handle whose Wait is that of every other handle of its
// testbed that is a SharedWait too (Join's: they all return at Cleanup):
// the controller then waits on one goroutine for them all, not on one per
// tester.
type SharedWait interface {
	SharedWait()
}

// StatusReporter is a Handle that can say what its engine knows of a
// tester that has not joined (e.g. Slurm's "pending (Resources)"): the
// controller adds it to the failure reason of a tester that never joined.
type StatusReporter interface {
	Status() string
}

// Retriever is a Handle whose tester keeps its samples on its own disk
// (diperf tester --spool PATH) and whose testbed can fetch that file
// (over SFTP, or straight from this machine's disk): at cleanup the
// controller takes from it the samples it had not acknowledged. A missing
// file is (nil, nil).
type Retriever interface {
	Retrieve(ctx context.Context) ([]byte, error)
}

// SpoolFlag is the tester flag that names its on-disk sample spool.
const SpoolFlag = "--spool"

// Settler is a Retriever whose tester's spool the testbed's Cleanup
// keeps, for `diperf analyze` (local) or `diperf fetch` (ssh) to take,
// unless the controller called SpoolSettled: it holds every sample of the
// spool it needs (all arrived, or it retrieved them). A spool nobody
// settled is never removed by a cleanup, this run's or a later one's.
type Settler interface {
	SpoolSettled()
}
