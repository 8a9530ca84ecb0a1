package analyze

import (
	"time"

	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/sample"
)

// Quantum is the aggregate view of one time quantum. Times are seconds since
// the run's time origin (Result.Origin).
type Quantum struct {
	T    float64 // quantum start, s since origin
	Load float64 // offered load: time-weighted mean of calls in flight
	// LoadMax is the most calls in flight in any cell of the quantum (cells
	// of at most 1 ms): calls in flight at some instant of the same cell
	// count together, except a tester's call and the next one it starts
	// after that call ended, which count once.
	LoadMax    int
	Active     int            // testers active at any time in the quantum
	Throughput float64        // successful calls completed per second
	OK         int            // successful calls completed in the quantum
	Failed     int            // failed calls (any non-OK class but cancelled) completed in the quantum
	RT         RTStats        // response time of the successful calls completed in the quantum
	Errors     map[string]int // completed non-OK calls by status class
	Bytes      int64          // bytes the calls completed in the quantum reported (0 when clients report none)
	BytesPerS  float64        // Bytes per second of the quantum
	Open       *OpenQuantum   // the open model's figures (nil in a closed-loop run)
	// Extras holds, by key, what the calls completed in the quantum
	// reported (every key of the run; nil when clients reported none).
	Extras map[string]ExtraQuantum
	Phases *PhaseQuantum // HTTP phases (nil when no call measured any)
	// TesterBound says why the testers, not the service, limited the load
	// in the quantum (their CPU, their host's CPU, their schedule's lag,
	// their descriptors; health.csv); "" when they did not, or nothing
	// is known of their health.
	TesterBound string
	// Step is the capacity search's step whose seconds hold the quantum's
	// start (search.json's steps, from 1); 0: none, or no search.
	Step int
}

// RTStats summarises a set of response times, in milliseconds. N == 0 means
// the set was empty and the other fields are zero.
type RTStats struct {
	N      int
	Min    float64
	Median float64
	Mean   float64
	P90    float64
	P99    float64
	Max    float64
	StdDev float64
}

// Client holds the per-tester figures (DiPerF's per-client metrics), or
// those of one client of a tester that ran several (Result.PerClient).
type Client struct {
	Index  int     // start order, from 0
	Client int     // the tester's client loop (in Result.PerClient; 0 in Result.Clients)
	ID     string  // host:pid
	Host   string  // host the tester ran on
	StartS float64 // s since origin when the tester started its client loop
	EndS   float64 // s since origin when it stopped (or failed)
	Failed bool    // the tester died or lost its controller
	// LatencyMs is the network round trip to the target (the fastest of a
	// few TCP connects before the client loop), or to the time server (the
	// min sync round trip) when the target names no TCP endpoint, ms.
	LatencyMs float64
	Whole     Share // over the tester's whole lifetime
	Peak      Share // over the peak window
	Clock     TesterClock
	// Net is what the sensor mesh measured between its host and the
	// target (nil: the run had no sensors key, and clients.csv no net_*
	// columns).
	Net *NetLink
	// Site is its host's site (testers.csv site; "": unknown).
	Site string
}

// TesterClock is what a tester's clock did over the run.
type TesterClock struct {
	MaxAbsOffsetMs float64     // largest |offset| to global time at a sync, ms
	MaxBoundMs     float64     // largest error bound at a sync, ms
	StartSkewMs    float64     // achieved − planned start (synchronized start only), ms
	Synchronized   bool        // it was told when to start
	Syncs          []SyncPoint // every sync, in time order
}

// SyncPoint is one clock sync of a tester, on the run's time axis.
type SyncPoint struct {
	T        float64 // s since origin
	OffsetMs float64 // global − local, ms
	RTTMs    float64 // round trip of the probe kept, ms
	BoundMs  float64 // error bound, ms
}

// Share is what one tester got from the service over some window.
type Share struct {
	OK          int     // successful calls completed
	Failed      int     // failed calls completed
	Utilization float64 // its share of all successful calls completed while it was active
	// Fairness is DiPerF's per-client service fairness, normalized so that
	// 1 is an equal share: Utilization times the mean number of testers
	// active while it was (its utilization over its fair share).
	Fairness   float64
	MeanRTms   float64 // mean response time of its successful calls, ms
	MedianRTms float64 // median response time of its successful calls, ms
	P99RTms    float64 // 99th percentile response time of its successful calls, ms
	AvgLoad    float64 // mean aggregate offered load while it was active
	// Bytes is what its calls completed in the window reported (bytes
	// column, whatever their status), and MBPerS that over the window's
	// length, in MB (10^6 bytes) per second.
	Bytes  int64
	MBPerS float64
}

// Summary is the content of summary.json (README, the run directory; thesis Tables 4-5).
type Summary struct {
	Samples        SampleCounts   `json:"samples"`
	Testers        TesterCounts   `json:"testers"`
	QuantumS       float64        `json:"quantum_s"`
	Throughput     Stats          `json:"throughput"`
	ResponseTimeMs RTSummary      `json:"response_time_ms"`
	Load           LoadSummary    `json:"load"`
	Saturation     Saturation     `json:"saturation"`
	Peak           Peak           `json:"peak"`
	Fairness       Fairness       `json:"fairness"`
	Clock          ClockSummary   `json:"clock"`
	Errors         map[string]int `json:"errors"`
	DurationS      float64        `json:"duration_s"`
	OriginNs       int64          `json:"origin_ns"` // global Unix ns of t = 0, where the quanta start
	// ErrorsTop lists the non-OK classes of Errors, the largest first,
	// each with a message of one of its calls (set by the pipeline, which
	// reads the messages; absent when every call succeeded).
	ErrorsTop []ErrorClass `json:"errors_top,omitempty"`
	// Open is the open model's summary (schedule.rate); absent in a
	// closed-loop run.
	Open *OpenModel `json:"open_model,omitempty"`
	// Extras summarises, by key, the values clients reported for their
	// calls; absent when they reported none. ExtrasIgnored counts the
	// values left out: of keys past the first MaxExtraKeys.
	Extras        map[string]ExtraStats `json:"extras,omitempty"`
	ExtrasIgnored int                   `json:"extras_ignored,omitempty"`
	// HTTPPhases summarises the HTTP phases of the calls; absent when no
	// call measured any.
	HTTPPhases *HTTPPhases `json:"http_phases_ms,omitempty"`
	// Incomplete is set (by the pipeline) when the run's controller
	// stopped before the run ended and its raw data were recovered from
	// the spool: testers were cut short, and samples not yet received
	// then are missing. IncompleteReason says what was recovered.
	Incomplete       bool   `json:"incomplete,omitempty"`
	IncompleteReason string `json:"incomplete_reason,omitempty"`
	// EarlyStops are the first MaxEarlyStops testers that stopped before
	// their duration without being told to, with why; absent when none
	// did (Testers.StoppedEarly counts them all).
	EarlyStops []EarlyStop `json:"early_stops,omitempty"`
	// Refused counts what the controller and the analysis refused as
	// impossible or repeated; absent when nothing was.
	Refused *Refused `json:"refused,omitempty"`
	// Transfer is the data the calls moved (their bytes column), in the
	// form of DiPerF's GridFTP study; absent when no call reported bytes.
	Transfer *Transfer `json:"transfer,omitempty"`
	// Search is a capacity search's answer (docs/search.md), from the run
	// directory's search.json; absent when the run was no search, or its
	// search.json was refused, then SearchRefused says why.
	Search        *SearchSummary `json:"search,omitempty"`
	SearchRefused string         `json:"search_refused,omitempty"`
	// Hosts counts the tester hosts and sites, with Jain's index across
	// the hosts (hosts.go); absent with no testers.
	Hosts *HostsSummary `json:"hosts,omitempty"`
}

// SampleCounts counts calls by outcome.
type SampleCounts struct {
	Total  int `json:"total"`
	OK     int `json:"ok"`
	Failed int `json:"failed"` // every non-OK class but cancelled
	// Cancelled counts the calls stopped mid-call by their tester (a
	// Stop, a lost controller, an interrupted run): neither ok nor
	// failed, so that Total = OK + Failed + Cancelled.
	Cancelled int `json:"cancelled"`
	Lost      int `json:"lost"` // produced by the testers, never received: on UDP, the samples of lost datagrams
	// LostInTransport is Lost under a name that says what it counts:
	// samples lost on their way to the controller, not in Total (Lost is
	// kept for the readers of earlier summaries).
	LostInTransport int `json:"lost_in_transport"`
	// UDP, when the samples came as datagrams, are the datagram counts
	// behind Lost (absent on TCP).
	UDP *UDPCounts `json:"udp,omitempty"`
}

// UDPCounts are a run's datagram counts (controller.transport: udp),
// summed over its testers.
type UDPCounts struct {
	Datagrams  uint64 `json:"datagrams"`      // distinct datagrams received
	Lost       uint64 `json:"datagrams_lost"` // datagrams never received
	SendErrors uint64 `json:"send_errors"`    // of Lost, those the testers' sockets refused to send
	Late       uint64 `json:"late"`           // received out of order
	Duplicates uint64 `json:"duplicates"`     // dropped as duplicates
	Stale      uint64 `json:"stale"`          // arrived after being counted lost, dropped
	// Exact is false when a tester's session ended without its Done:
	// its trailing datagrams are unknown, and Lost is a lower bound.
	Exact bool `json:"exact"`
}

// TesterCounts counts testers.
type TesterCounts struct {
	Planned int `json:"planned"`
	Started int `json:"started"`
	Failed  int `json:"failed"`
	// StoppedEarly counts the testers whose client loop ended before
	// their duration without being told to (Summary.EarlyStops says why).
	StoppedEarly int `json:"stopped_early,omitempty"`
	// HealthQuanta counts the quanta in which some tester reported its
	// health (health.csv), BoundQuanta those of them the testers limited
	// (Quantum.TesterBound); both absent when the run has no health.
	// HealthRefused counts the rows of health.csv refused as impossible
	// or repeated, HealthRefusedReason says why the first was.
	HealthQuanta        int    `json:"health_quanta,omitempty"`
	BoundQuanta         int    `json:"bound_quanta,omitempty"`
	HealthRefused       int    `json:"health_refused,omitempty"`
	HealthRefusedReason string `json:"health_refused_reason,omitempty"`
}

// MaxEarlyStops bounds Summary.EarlyStops: the first testers, by index,
// that stopped early.
const MaxEarlyStops = 100

// EarlyStop is a tester that stopped before its duration without being
// told to, and why (testers.csv stopped_early, stop_reason).
type EarlyStop struct {
	Index  int    `json:"index"`
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Stats is the Min/Med/Aver/Max/Std.Dev. row of the summary table.
type Stats struct {
	Unit   string  `json:"unit"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Max    float64 `json:"max"`
	StdDev float64 `json:"stddev"`
}

// RTSummary is the response-time row of the summary table, in ms.
type RTSummary struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Max    float64 `json:"max"`
	StdDev float64 `json:"stddev"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
}

// LoadSummary describes the offered load.
type LoadSummary struct {
	Max float64 `json:"max"`
}

// Saturation is the knee of throughput against offered load. When the
// service never saturated, Saturated is false and Load/Throughput hold the
// highest load reached and the throughput there (the thesis' "*").
//
// Verdict says what the data shows (see verdict.go): VerdictSaturated,
// VerdictNotSaturated, VerdictTesterLimited or VerdictTooLittleData; ""
// in a summary written before verdicts. Saturated is true only with
// VerdictSaturated.
type Saturation struct {
	Saturated  bool    `json:"saturated"`
	Load       float64 `json:"load"`
	Throughput float64 `json:"throughput"`
	Verdict    string  `json:"verdict,omitempty"`
	// Evidence is what the verdict rests on (the plateau, or why there is
	// none), in words.
	Evidence string `json:"evidence,omitempty"`
	// Reason says why the verdict could not be saturated or not: the
	// testers' limit, or the data missing.
	Reason string `json:"reason,omitempty"`
	// CapacityAtLeast is, when not saturated, the throughput the service
	// sustained at the highest loads tested: its capacity is at least this.
	CapacityAtLeast float64 `json:"capacity_at_least,omitempty"`
}

// Peak is the window in which the most testers (with several clients per
// tester, the most clients) ran at once.
type Peak struct {
	StartS  float64 `json:"start_s"`
	EndS    float64 `json:"end_s"`
	Testers int     `json:"testers"`
	// Clients counts the clients that ran over the whole window, when
	// testers ran several each (else 0, left out).
	Clients int `json:"clients,omitempty"`
}

// Fairness holds Jain's index over testers' successful calls in the peak
// window; with several clients per tester, over every client's.
type Fairness struct {
	Jain float64 `json:"jain"`
	// Clients is how many clients the index is over, when testers ran
	// several each (else 0, left out: it is over Peak.Testers testers).
	Clients int `json:"clients,omitempty"`
}

// ClockSummary holds the worst clock figures over all testers.
type ClockSummary struct {
	MaxAbsOffsetMs  float64 `json:"max_abs_offset_ms"`
	MaxErrorBoundMs float64 `json:"max_error_bound_ms"`
	MaxStartSkewMs  float64 `json:"max_start_skew_ms"` // synchronized start: largest |achieved − planned|
	// Unauthenticated counts the testers whose clock syncs were not all
	// authenticated: the run's time server held no keys (sync.server), or
	// the run predates authentication.
	Unauthenticated int `json:"unauthenticated_testers,omitempty"`
	// RefusedReplies counts the time replies the testers refused: they
	// failed authentication (forged or altered on the path).
	RefusedReplies uint64 `json:"refused_replies,omitempty"`
	// RefusedSyncs counts the sync records the controller refused: they
	// disagree with the tester's syncs before them beyond their bounds.
	RefusedSyncs uint64 `json:"refused_syncs,omitempty"`
	// Suspect lists, by index, the testers whose syncs disagree beyond
	// their error bounds: their samples are analyzed on the timeline their
	// syncs give, which cannot all be right.
	Suspect []SuspectClock `json:"suspect_testers,omitempty"`
}

// SuspectClock is a tester whose clock syncs disagree.
type SuspectClock struct {
	Index  int    `json:"index"`
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Result is everything the analyzer derives from a run directory; the
// reporter draws from it alone.
type Result struct {
	Name    string    // experiment name
	Origin  int64     // global Unix ns of t = 0 (first tester start)
	Summary Summary   // the summary table
	Quanta  []Quantum // the time series, one per quantum
	Clients []Client  // per tester, by start order
	// PerClient holds, when testers ran several clients each, every
	// (tester, client) pair by tester start order, then client; nil else.
	PerClient []Client
	// Percentiles is the response-time distribution of every successful
	// call of the run (graph f), at the percentiles of PercentileRanks.
	Percentiles []PercentilePoint
	// Server is the run's server view, monitor.csv's points (set by the
	// pipeline; nil without the experiment key monitor).
	Server []monitor.Point
	// Hosts and Sites are the per-host and per-site figures (hosts.go,
	// hosts.csv), by name; Sites is empty when no tester had a site.
	Hosts, Sites []HostFigures

	rt     *quantaRT      // each quantum's response times, for ResponseTimes
	health []TesterHealth // each quantum's tester health, for TesterHealth
}

// ClientRows returns the rows of clients.csv: one per client when
// testers ran several each, else one per tester.
func (r *Result) ClientRows() []Client {
	if r.PerClient != nil {
		return r.PerClient
	}
	return r.Clients
}

// PercentilePoint is one point of a response-time distribution.
type PercentilePoint struct {
	P  float64 // percentile rank, 0 to 100
	Ms float64 // response time at that rank, ms
}

// PercentileRanks are the ranks Result.Percentiles holds: dense in the tail,
// where a service's trouble shows.
var PercentileRanks = []float64{0, 1, 5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 95, 97.5, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100}

// Tester is what the analyzer needs to know of one tester.
type Tester struct {
	Index     int     // start order, from 0
	ID        string  // host:pid
	Host      string  // host name
	Start     int64   // global Unix ns when its client loop started
	End       int64   // global Unix ns when it stopped or failed
	Failed    bool    // died, or lost its controller
	LatencyMs float64 // network round trip to the target, else min sync round trip, ms
	OffsetMs  float64 // largest absolute clock offset seen at a sync, ms
	BoundMs   float64 // largest error bound seen at a sync, ms
	// Syncs are its clock syncs (T in global Unix ns); StartSkewMs and
	// Synchronized describe a synchronized start.
	Syncs        []TesterSync
	StartSkewMs  float64
	Synchronized bool
	// Clock trust (docs/design/002-time.md): ClockUnauth is set when its
	// syncs were not all authenticated, ClockRefused counts the time
	// replies it refused (forged or altered on the path), ClockSuspect
	// says why its syncs disagree beyond their error bounds ("": they
	// agree), ClockSyncsRefused counts the syncs the controller refused
	// for disagreeing with those before them.
	ClockUnauth       bool
	ClockRefused      uint64
	ClockSuspect      string
	ClockSyncsRefused uint64
	// Site is its host's site ("": unknown).
	Site string
}

// TesterSync is one clock sync of a tester, at global Unix ns T.
type TesterSync struct {
	T                        int64
	OffsetMs, RTTMs, BoundMs float64
}

// Input is a run reduced to what the analysis needs; rundir loads it from a
// run directory, tests build it by hand.
type Input struct {
	Name    string        // experiment name
	Quantum time.Duration // aggregation quantum
	Planned int           // testers the experiment asked for
	Lost    int           // samples known to be lost
	Calls   []sample.Call // every call, any order
	Testers []Tester      // every tester that started, any order
	// ClientsPerTester and ClientStartInterval are as in Config.
	ClientsPerTester    int
	ClientStartInterval time.Duration
	Health              []sample.Health // as in Config
}
