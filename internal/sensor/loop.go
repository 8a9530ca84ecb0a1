package sensor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/diperf/diperf/internal/clock"
	"math/rand/v2"
	"time"
)

// Defaults of the loop (Gloperf §3: a 5 s test every 5 minutes).
const (
	DefaultPeriod   = 5 * time.Minute
	DefaultTestTime = 5 * time.Second
)

// ErrBusy is what a Prober returns when the peer refused the test because
// it runs a bandwidth test of its own: the test is tried again after one
// to two test times, BusyTries times in all.
var ErrBusy = errors.New("sensor: the peer is busy with another bandwidth test")

// ErrUnreachable is wrapped by what a Prober returns when the peer did not
// connect or answer in time: no test ran. The peer is backed off, and the
// time is not charged as testing.
var ErrUnreachable = errors.New("sensor: the peer did not connect or answer: no test ran")

// ErrOverBudget is wrapped by what a Prober returns when the test's byte
// allowance (Test.MaxBytes) does not cover even its own messages: it was
// not started.
var ErrOverBudget = errors.New("sensor: the byte budget's allowance does not cover the test")

// BusyTries is how many times a test is tried while its peer answers busy
// before it counts as missed.
const BusyTries = 3

// Directory is what the loop needs of the directory service.
type Directory interface {
	Sensors(ctx context.Context) ([]Peer, error)
	Write(ctx context.Context, r Result) error
}

// Prober runs one test for testTime.
type Prober interface {
	Run(ctx context.Context, t Test, testTime time.Duration) (Measurement, error)
}

// Measurement is what one test found.
type Measurement struct {
	BandwidthBps float64 // bandwidth: over the whole test
	SteadyBps    float64 // bandwidth: after slow start
	LatencyMs    float64 // latency: 1 / transactions per second
	P50Ms, P90Ms float64 // latency: of the transactions' round trips
	P99Ms        float64
	Bytes        float64 // what the test sent and received, counted at its socket (for the byte budget)
	// Capped: the test stopped at its byte allowance (Test.MaxBytes),
	// before its test time; a bandwidth test is then measured over the
	// time its data flowed (DataTime).
	Capped bool
	// DataStart and DataTime are when a bandwidth test's data flowed
	// (zero: not known): a host's bandwidth tests never overlap in them.
	DataStart time.Time
	DataTime  time.Duration
}

// Result is a measurement written to the directory.
type Result struct {
	Src, Dst string
	Kind     Kind
	At       time.Time // when the test started
	Took     time.Duration
	Busy     int // the source's tests refused as busy so far
	Missed   int // and missed so far
	Measurement
}

// Config configures the loop.
type Config struct {
	Self     Peer
	Period   time.Duration // at most one test per period (0: DefaultPeriod)
	TestTime time.Duration // each test's length (0: DefaultTestTime)
	Budget   Budget        // Fraction 0: TestTime/Period
	Rand     *rand.Rand    // the lists' order (nil: seeded from the clock)
	// Busy is told true while this sensor runs a bandwidth test, and false
	// after: its own test server refuses to be the far end of another.
	Busy func(bool)
	Log  func(string) // nil: silent
	// OnList hears what the sensor did and spent so far after each list
	// (nil: nothing).
	OnList func(Stats)
	// Served, when set, is the account of the tests this sensor serves:
	// charged to the budget beside its own (Ledger.CountServed).
	Served *Served
	// OnDemand, when set, brings tests asked for now (diperf probe): each
	// runs at the loop's next pause, within the budget (ondemand.go).
	OnDemand <-chan Request
}

// Stats is what a sensor did: tests done, tries refused as busy, tests
// missed (failed, or busy BusyTries times), lists completed, and what it
// spent.
type Stats struct {
	Tests, Busy, Missed, Lists int
	Fraction, BytesPerHour     float64
	// Unreachable counts the missed tests whose peer did not connect or
	// answer, HeldBack the tests not tried while their peer was backed off
	// or the byte budget did not allow them, Capped the tests stopped at
	// the byte budget.
	Unreachable, HeldBack, Capped int
	// OnDemand counts the on-demand tests run, Refused those refused as
	// over the budget.
	OnDemand, Refused int
}

// Run loops until ctx is done: query the directory, plan, run the list one
// test at a time within the budget, write each result. While the
// directory does not answer, it plans from the peers it listed last. It
// returns what it did.
func Run(ctx context.Context, cfg Config, dir Directory, pr Prober) Stats {
	cfg = withDefaults(cfg)
	l := loop{cfg: cfg, dir: dir, pr: pr, ledger: NewLedger(time.Now())}
	if cfg.Served != nil {
		l.ledger.CountServed(cfg.Served)
	}
	for ctx.Err() == nil {
		peers, ok := l.peers(ctx)
		if !ok {
			l.pause(ctx, cfg.Period)
			continue
		}
		ran, done := l.runList(ctx, Plan(peers, cfg.Rand))
		if done && len(peers) > 0 {
			l.st.Lists++
			if cfg.OnList != nil {
				st := l.st
				st.Fraction, st.BytesPerHour = l.ledger.Spent(time.Now())
				cfg.OnList(st)
			}
		}
		if ran == 0 { // nothing to test, or every peer held back: not a busy loop
			l.pause(ctx, cfg.Period)
		}
	}
	l.st.Fraction, l.st.BytesPerHour = l.ledger.Spent(time.Now())
	return l.st
}

// peers are the eligible peers from the directory, or, while it does not
// answer, those it listed last; false when there are none yet.
func (l *loop) peers(ctx context.Context) ([]Peer, bool) {
	all, err := l.dir.Sensors(ctx)
	if err == nil {
		if l.dirDown {
			l.log("the directory answers again")
		}
		l.dirDown, l.known = false, Eligible(l.cfg.Self, all)
		return l.known, true
	}
	if l.known == nil {
		l.log("querying the directory: %v", err)
		return nil, false
	}
	if !l.dirDown {
		l.log("querying the directory: %v; testing the %d peers it listed last until it answers", err, len(l.known))
	}
	l.dirDown = true
	return l.known, true
}

func withDefaults(c Config) Config {
	c.Period = cmp.Or(c.Period, DefaultPeriod)
	c.TestTime = cmp.Or(c.TestTime, DefaultTestTime)
	if c.Budget.Fraction == 0 {
		c.Budget.Fraction = float64(c.TestTime) / float64(c.Period)
	}
	if c.Rand == nil {
		c.Rand = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x5eed))
	}
	return c
}

type loop struct {
	cfg     Config
	dir     Directory
	pr      Prober
	ledger  *Ledger
	hold    backoff    // the peers held back after failures
	hour    hourWindow // the bytes of the last hour's tests
	known   []Peer     // the eligible peers the directory listed last
	dirDown bool       // the directory did not answer the last query
	last    time.Time  // when the last test started
	st      Stats
}

// waitTurn sleeps until the next test may start: a period after the last
// one, within the budget, plus a random delay of up to a quarter period
// (sensors started together would otherwise test in step, each finding
// its peer busy with its own bandwidth test at every try); false if ctx
// ended first.
// On-demand tests run meanwhile; the turn is then reckoned again.
func (l *loop) waitTurn(ctx context.Context) bool {
	jitter := time.Duration(l.cfg.Rand.Int64N(int64(l.cfg.Period/4) + 1))
	for {
		start := l.budgetStart()
		if !l.last.IsZero() {
			start = maxTime(start, l.last.Add(l.cfg.Period))
		}
		if ran, ok := l.pauseFor(ctx, time.Until(start.Add(jitter))); !ran {
			return ok
		}
	}
}

// budgetStart is when the budget lets the next test start, at the
// soonest: its time share, and its bytes an hour.
func (l *loop) budgetStart() time.Time {
	start := l.ledger.Earliest(l.cfg.Budget, l.cfg.TestTime)
	return maxTime(start, l.hour.earliest(l.cfg.Budget, l.ledger.Average()))
}

// tryBusy runs a test; while the peer answers busy (it runs a bandwidth
// test of its own, which lasts a test time), it tries again after one to
// two test times, BusyTries times in all. Each refusal is counted; the
// last one is returned, and the test is missed.
func (l *loop) tryBusy(ctx context.Context, t Test) (Measurement, time.Duration, error) {
	for try := 1; ; try++ {
		m, took, err := l.one(ctx, t)
		if !errors.Is(err, ErrBusy) {
			return m, took, err
		}
		l.st.Busy++
		if try == BusyTries {
			return m, took, err
		}
		if t.MaxBytes > 0 { // the refusal's bytes count: the next try gets what is left
			t.MaxBytes = max(1, t.MaxBytes-m.Bytes)
		}
		backoff := l.cfg.TestTime + time.Duration(l.cfg.Rand.Int64N(int64(l.cfg.TestTime)+1))
		if !clock.Sleep(ctx, backoff) {
			return m, took, ctx.Err()
		}
	}
}

// one runs a test, with this sensor's server busy during a bandwidth test,
// and books it in the ledger: a test that never started (its peer did not
// answer, or its allowance was too small) neither takes a turn nor counts
// its time as testing.
func (l *loop) one(ctx context.Context, t Test) (Measurement, time.Duration, error) {
	prev := l.last
	l.last = time.Now()
	if t.Kind == Bandwidth && l.cfg.Busy != nil {
		l.cfg.Busy(true)
		defer l.cfg.Busy(false)
	}
	m, err := l.pr.Run(ctx, t, l.cfg.TestTime)
	took := time.Since(l.last)
	if errors.Is(err, ErrUnreachable) || errors.Is(err, ErrOverBudget) {
		l.ledger.AddBytes(m.Bytes)
		l.hour.add(l.last, m.Bytes)
		l.last = prev
		return m, took, err
	}
	l.ledger.Add(took, m.Bytes)
	l.hour.add(l.last, m.Bytes)
	return m, took, err
}

func (l *loop) log(format string, a ...any) {
	if l.cfg.Log != nil {
		l.cfg.Log(fmt.Sprintf(format, a...))
	}
}
