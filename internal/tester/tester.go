// Package tester is the agent that runs on a test host: it proves itself to
// its controller, receives the test description, syncs its clock, runs the
// client on schedule, times every call and streams the samples back. It
// stops its client loop at once when it loses the controller: a service is
// never loaded when nobody collects.
package tester

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/clocksync"
	"github.com/diperf/diperf/internal/contain"
	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/transport"
)

// Options configure one tester.
type Options struct {
	Controller string // controller address
	Slot       int    // slot the controller started us for
	// Token is the tester's credential: the secret it proves it holds and
	// the key of the only controller it obeys.
	Token credential.Token
	// Reach is how the tester reaches its controller, as its testbed
	// started it (transport.Reach; the run chose it, testbed.Choose):
	// Dial and Join dial Controller over Transport (nil: TCP), Join
	// also waiting while it does not answer; Attached speaks over Conn,
	// the connection already open (the stdio of an SSH session: diperf
	// tester --stdio), Controller then being only its name.
	Reach     transport.Reach
	Transport transport.Transport
	Conn      net.Conn
	// TimeServer and TimeTransport, when set, replace the time server the
	// test description names (a testbed that forwards the syncs itself).
	TimeServer    string
	TimeTransport string
	ClockOffset   time.Duration // test only: injected clock offset
	ClockDriftPPM float64       // test only: injected clock drift
	Log           io.Writer     // diagnostics
	// JoinRetry is how long to keep trying to join the controller when it
	// refuses for want of room or the connection ends before the
	// handshake does (0: try once); with Reach Join, also while it does
	// not answer (diperf tester --join: an engine may start its testers
	// before their controller). See join.
	JoinRetry time.Duration
	// SpoolPath, when set, is the file every sample batch is appended to
	// before it is sent (diperf tester --spool; see diskSpool).
	SpoolPath string
	// Jail holds the processes of exec and persistent clients; what is
	// left in it when the client loop is over is stopped (SIGTERM, then
	// SIGKILL after the client's kill grace). nil: process groups only.
	Jail *contain.Jail

	// now, when set, is the clock the liveness watch measures time on
	// (tests: one that jumps, as a stalled process's clock does).
	now func() time.Time
}

// ErrLostController is returned when the controller went away mid-test.
var ErrLostController = errors.New("lost the controller")

// Tester is one running agent.
type Tester struct {
	o      Options
	conn   *protocol.Conn
	clk    *clock.Local
	desc   protocol.TestDesc
	client client.Client // built from desc.Client
	id     string
	sy     *clocksync.Syncer
	cancel context.CancelCauseFunc
	out    *outbox
	readCh chan struct{} // closed when readLoop returns

	refusedLogged      uint64 // time replies refused, as last logged (syncHealth)
	inconsistentLogged int    // syncs not used, as last logged (syncHealth)

	lv       *liveState // the controller's signs of life (liveness.go)
	steer    *steerer   // the controller's load steps (steer.go)
	mu       sync.Mutex
	spoolErr string // a spool error not yet reported to the controller
}

// Run connects, runs the whole test and returns when it is over.
func Run(ctx context.Context, o Options) error {
	if o.Transport == nil {
		o.Transport = transport.TCP{}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	t := &Tester{o: o, clk: clock.NewLocal(int64(o.ClockOffset), o.ClockDriftPPM)}
	defer t.logCounts()
	c, err := t.join(ctx)
	if err != nil {
		return err
	}
	defer t.conn.Close()
	err = t.run(ctx)
	if err != nil {
		// Best effort: the controller records why (testers.csv
		// failure_reason); a partition must not hold the exit.
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = t.conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: err.Error()})
	}
	return err
}

// logCounts writes, on every way out, the samples produced and the highest
// Seq the controller acknowledged as spooled: "acked_samples=N
// produced_samples=M" (tools read these tokens).
func (t *Tester) logCounts() {
	var produced, acked uint64
	if t.out != nil {
		produced, acked = t.out.counts()
	}
	fmt.Fprintf(t.o.Log, "tester %s: acked_samples=%d produced_samples=%d\n", t.id, acked, produced)
}

func (t *Tester) handshake() error {
	host, _ := os.Hostname()
	t.id = host + ":" + strconv.Itoa(os.Getpid())
	hello := protocol.Hello{Proto: protocol.Version, Slot: t.o.Slot, ID: t.id, Host: host, PID: os.Getpid(), Nonce: protocol.NewNonce(), Steerable: true}
	_ = t.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	desc, err := Handshake(t.conn, t.o.Token, hello)
	if err != nil {
		return err
	}
	t.desc = desc
	_ = t.conn.SetReadDeadline(time.Time{})
	if t.o.Slot == protocol.AnySlot {
		t.o.Slot = t.desc.Slot
	}
	if t.o.TimeServer != "" {
		t.desc.TimeServer, t.desc.TimeTransport = t.o.TimeServer, t.o.TimeTransport
	}
	if err := t.desc.Validate(); err != nil {
		return fmt.Errorf("tester: %w", err)
	}
	c, err := client.New(client.Spec{Desc: t.desc.Client, Env: t.clientEnv(), Timeout: time.Duration(t.desc.TimeoutNs), Jail: t.o.Jail})
	if err != nil {
		return fmt.Errorf("tester: %w", err)
	}
	t.client = c
	return nil
}

func (t *Tester) run(parent context.Context) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	t.cancel = cancel
	t.out = newOutbox(t.conn, cancel)
	t.out.lag.interval = t.desc.IntervalNs
	if g := t.desc.UDP; g != nil {
		k, _ := t.conn.Keys()
		u, err := dialUDP(k, g)
		if err != nil {
			return fmt.Errorf("tester: %w", err)
		}
		defer u.close()
		t.out.udp = u
	}
	if t.o.SpoolPath != "" {
		t.out.disk = openDiskSpool(t.o.SpoolPath, t.o.Slot, t.spoolFailed)
		defer t.out.disk.close()
	}
	t.lv = newLiveState(t.o.now)
	t.steer = newSteerer(&t.desc, t.o.Log, t.id)
	t.readCh = make(chan struct{})
	t.heard()
	go t.readLoop()
	if hb := time.Duration(t.desc.HeartbeatNs); hb > 0 {
		hbCtx, stop := context.WithCancel(parent)
		defer stop()
		go t.heartbeatLoop(hbCtx, hb)
		go t.tickAwake(hbCtx)
	}
	sy, err := clocksync.NewAuth(t.desc.TimeTransport, t.desc.TimeServer, t.o.Transport.Dial, t.timeKey(), t.clk, t.desc.SyncProbes)
	if err != nil {
		return fmt.Errorf("tester: %w", err)
	}
	defer sy.Close()
	t.sy = sy
	if err := firstSync(ctx, FirstSyncWindow, t.sync, func(err error) {
		fmt.Fprintf(t.o.Log, "tester %s: clock sync failed (%v); trying again for up to %v\n", t.id, err, FirstSyncWindow)
	}); err != nil {
		return fmt.Errorf("tester: %w", err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); t.out.flushLoop(ctx, time.Duration(t.desc.BatchNs)) }()
	go func() { defer wg.Done(); t.resyncLoop(ctx) }()
	if t.desc.HeartbeatNs > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); t.watchSilence(ctx, t.silence()) }()
	}
	reason := "stopped"
	rtt := probeTarget(t.desc.Target)
	if woke, ok := t.waitForStart(ctx); ok {
		reason = t.loop(ctx, t.client, woke, rtt)
	}
	t.closeClient()
	cancelLoops(cancel, &wg)
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrLostController):
		fmt.Fprintf(t.o.Log, "tester %s: %v; client loop stopped\n", t.id, cause)
		_ = t.out.flush() // to the spool: the wire is gone
		return cause
	case errors.Is(cause, errCutOff):
		return t.cutOff()
	}
	return t.finish(reason)
}

// cancelLoops stops the helper loops once the client loop is over.
func cancelLoops(cancel context.CancelCauseFunc, wg *sync.WaitGroup) {
	cancel(errLoopDone)
	wg.Wait()
}

var errLoopDone = errors.New("client loop done")

// finish sends the last samples and Done, then waits briefly for the
// controller to hang up so that nothing is cut off in flight.
func (t *Tester) finish(reason string) error {
	if err := t.out.flush(); err != nil {
		return fmt.Errorf("tester: sending last samples: %w", err)
	}
	done := protocol.Done{LocalNs: t.clk.Now(), Produced: t.out.producedCount(), Reason: reason}
	done.UDPLastSeq, done.UDPSendErrors = t.out.udpCounts()
	done.LoadSteps, done.LoadRefused, done.LoadRefusedWhy = t.steer.counts()
	if err := t.conn.WriteJSON(protocol.TypeDone, done); err != nil {
		return fmt.Errorf("tester: sending done: %w", err)
	}
	select {
	case <-t.readCh:
	case <-time.After(10 * time.Second):
	}
	return nil
}

// loop runs the clients on schedule (runClients, or runOpen for an open
// model) until the test duration is over or the tester is stopped; it
// returns why it ended. woke is the local time a
// synchronized start woke at, which is when the loop started (0: now);
// targetRTT goes to the controller with the start.
func (t *Tester) loop(ctx context.Context, c client.Client, woke int64, targetRTT time.Duration) string {
	if woke == 0 {
		woke = t.clk.Now()
	}
	t.out.started(woke, targetRTT)
	defer t.startHealth(ctx)()
	if t.desc.Rate != nil { // the open model
		return runOpenSteered(ctx, t.desc.Rate, t.desc.Clients(), c, t.clk, t.out, t.steer.open())
	}
	if lp, ok := c.(client.Looper); ok && t.desc.ClientStartIntervalNs == 0 && !t.desc.Steered {
		// An event-loop client (plain HTTP/1.1 keep-alive) runs every
		// closed loop itself; a stagger of the clients' starts needs the
		// loops of runClients.
		until := woke + t.desc.DurationNs
		return lp.Loop(ctx, t.desc.Clients(), time.Duration(t.desc.IntervalNs), until, t.clk.Now, t.record)
	}
	call := func(ctx context.Context, client uint32) sample.Status { return t.out.call(ctx, c, t.clk, client) }
	return runClientsGated(ctx, t.desc.Clients(), time.Duration(t.desc.ClientStartIntervalNs),
		time.Duration(t.desc.DurationNs), time.Duration(t.desc.IntervalNs), t.steer.closed(ctx, t.out.resumed), call)
}

// pace makes calls for duration from now, one every interval: a call
// slower than the interval is followed by the next at once (back-to-back,
// never a burst to catch up), and a client that cannot be started is
// backed off (startBackoff). It returns "completed" once the duration is
// over, or "stopped" when ctx is done first.
func pace(ctx context.Context, duration, interval time.Duration, call func(context.Context) sample.Status) string {
	return pacePark(ctx, duration, interval, nil, call)
}

// pacePark is pace with park (nil: none), which may hold the loop before
// each call until end (steer_gate.go); the call after the wait is not
// made up for what it missed.
func pacePark(ctx context.Context, duration, interval time.Duration, park func(context.Context, time.Time) bool, call func(context.Context) sample.Status) string {
	next := time.Now()
	end := next.Add(duration)
	var backoff startBackoff
	var sl sleeper // one timer for every wait
	for {
		if wait := time.Until(next); wait > 0 && !sl.sleep(ctx, wait) {
			return "stopped"
		}
		if ctx.Err() != nil {
			return "stopped"
		}
		if !time.Now().Before(end) {
			return "completed"
		}
		if park != nil && park(ctx, end) {
			next = time.Now() // woke: check ctx and the end again, then call at once
			continue
		}
		st := call(ctx)
		next = next.Add(interval)
		if now := time.Now(); next.Before(now) {
			next = now // back-to-back, never a burst to catch up
		}
		if d := backoff.after(st); d > 0 && time.Until(next) < d {
			next = time.Now().Add(d) // a client that cannot start: slow down
		}
		if !next.Before(end) {
			return "completed" // no call is due before the end: no wait past it
		}
	}
}

// Back-off bounds for a client that cannot be started.
const (
	minStartBackoff = 10 * time.Millisecond
	maxStartBackoff = time.Second
)

// startBackoff spaces out the calls of a client that cannot be started
// (missing executable, no permission): with no interval between calls it
// would be tried as fast as fork allows, filling the run with thousands of
// failed_to_start samples a second. Each such call in a row doubles the
// wait, from 10 ms up to 1 s; any call that starts resets it.
type startBackoff struct{ wait time.Duration }

// after returns the least time to wait before the next call after a call
// that ended with st.
func (b *startBackoff) after(st sample.Status) time.Duration {
	if st != sample.FailedToStart {
		b.wait = 0
		return 0
	}
	b.wait = min(max(2*b.wait, minStartBackoff), maxStartBackoff)
	return b.wait
}

// clientEnv is the environment every client gets: the tester's own and
// the DIPERF_ variables (an exec client adds the description's Env).
func (t *Tester) clientEnv() []string {
	env := append(os.Environ(),
		"DIPERF_TARGET="+t.desc.Target,
		"DIPERF_TESTER_ID="+t.id,
		"DIPERF_TESTER_INDEX="+strconv.Itoa(t.o.Slot))
	return env
}

// record queues the sample of a call an event-loop client made.
func (t *Tester) record(idx uint32, start, end int64, r *client.Reply) {
	t.out.add(sample.Sample{Client: idx, Start: start, End: end, Status: r.Status, Bytes: r.Bytes, Err: r.Err,
		Phases: r.Phases, Extras: slices.Clone(r.Extras)})
}
