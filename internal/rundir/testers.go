package rundir

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/diperf/diperf/internal/clock"
)

// TesterRecord is what the controller knows of one tester. Times are global
// Unix ns (0 = never happened).
type TesterRecord struct {
	Slot          int            // index by start order
	ID            string         // host:pid as the tester reported it
	Host          string         // host it ran on
	PID           int            // process id
	LaunchNs      int64          // when the testbed started it
	StartNs       int64          // when its client loop started
	StopNs        int64          // when it stopped (or failed)
	Failed        bool           // died, lost its controller, or never joined
	FailureReason string         // why, when Failed
	Sent          uint64         // samples it said it produced
	Received      uint64         // samples the controller received
	Syncs         []clock.Record // its clock sync records
	PlannedNs     int64          // synchronized start: when it was told to start (0 = not told)
	InjectedOff   int64          // test only: clock offset injected into it, ns
	InjectedDrift float64        // test only: clock drift injected into it, ppm
	TargetRTTNs   int64          // network round trip to the target (fastest TCP connect), ns; 0 = not measured

	// UDP sample transport (controller.transport: udp): the datagram
	// counts of its session (protocol.LossStats). Its samples lost are
	// Lost(), as on TCP.
	UDP           bool   // its samples came as datagrams
	UDPDatagrams  uint64 // distinct datagrams received
	UDPLost       uint64 // datagrams never received (a lower bound unless UDPLossExact)
	UDPLate       uint64 // of UDPDatagrams, those that arrived out of order
	UDPDuplicates uint64 // duplicates dropped
	UDPStale      uint64 // arrived after their number was counted lost, dropped
	UDPSendErrors uint64 // datagrams its socket refused to send (among UDPLost)
	UDPLossExact  bool   // its Done said its last datagram: UDPLost is exact

	// StoppedEarly: its client loop ended before its duration without
	// the controller telling it to stop (cut off from the controller, a
	// signal on its host, its process or connection gone); StopReason
	// says why.
	StoppedEarly bool
	StopReason   string
	// Refused is what the controller refused of it at ingest (refusals.go).
	Refused Refusals
	// Clock trust (docs/design/002-time.md): whether every sync was
	// authenticated with the tester's time key, how many time replies it
	// refused (they failed authentication: forged or altered on the
	// path), why its syncs are suspect ("": they agree), and how many of
	// its syncs the controller refused for disagreeing with the ones
	// before (not in Syncs).
	ClockAuth         bool
	ClockRefused      uint64
	ClockSuspect      string
	ClockSyncsRefused uint64

	// Site is the site of its host: its sensor's site in the sensor
	// mesh (the experiment key sensors), "" when unknown; SiteRefused
	// says why a site read back from testers.csv was refused (CheckSite).
	Site        string
	SiteRefused string
	// Chosen is why testbed.select chose its host ("": no selection).
	Chosen string
}

// StartSkewNs is how far its achieved start was from the planned one.
func (t *TesterRecord) StartSkewNs() int64 {
	if t.PlannedNs == 0 || t.StartNs == 0 {
		return 0
	}
	return t.StartNs - t.PlannedNs
}

// Lost is how many samples the tester produced that never arrived.
func (t *TesterRecord) Lost() uint64 {
	if t.Sent > t.Received {
		return t.Sent - t.Received
	}
	return 0
}

// ClockFigures returns the largest |offset|, the smallest round trip and the
// largest error bound over the tester's syncs, in ms.
func (t *TesterRecord) ClockFigures() (offsetMs, minRTTMs, boundMs float64) {
	for i, s := range t.Syncs {
		offsetMs = max(offsetMs, abs(float64(s.OffsetNs))/1e6)
		boundMs = max(boundMs, float64(s.BoundNs)/1e6)
		if rtt := float64(s.RTTNs) / 1e6; i == 0 || rtt < minRTTMs {
			minRTTMs = rtt
		}
	}
	return
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

var testerHeader = []string{"index", "id", "host", "pid", "launch_ns", "start_ns", "stop_ns", "failed",
	"failure_reason", "samples_sent", "samples_received", "samples_lost", "syncs",
	"max_abs_offset_ms", "min_rtt_ms", "max_error_bound_ms", "planned_start_ns", "start_skew_ms",
	"injected_offset_ns", "injected_drift_ppm", "target_rtt_ms",
	"transport", "udp_datagrams", "udp_datagrams_lost", "udp_late", "udp_duplicates", "udp_stale",
	"udp_send_errors", "udp_loss_exact", "stopped_early", "stop_reason",
	"samples_duplicate", "samples_refused_time", "samples_refused_count", "messages_refused", "refused_reason",
	"clock_auth", "clock_refused", "clock_suspect", "clock_syncs_refused",
	"site", "chosen"}

// testerColumnsV1 is how many columns testers.csv had before target_rtt_ms;
// such files still read, with no target round trip. testerColumnsV2 is
// how many it had before the UDP columns (transport and the datagram
// counts); such files read as TCP runs.
const (
	testerColumnsV1 = 20
	testerColumnsV2 = 21
)

// readUDPColumns reads the UDP columns r has, by name: a file written
// before them (testerColumnsV2 columns or fewer) reads as a TCP run.
func readUDPColumns(t *TesterRecord, r []string, p *parser) {
	for i := testerColumnsV2; i < len(r); i++ {
		v := r[i]
		switch testerHeader[i] {
		case "transport":
			t.UDP = v == "udp"
		case "udp_datagrams":
			t.UDPDatagrams = p.u64(v)
		case "udp_datagrams_lost":
			t.UDPLost = p.u64(v)
		case "udp_late":
			t.UDPLate = p.u64(v)
		case "udp_duplicates":
			t.UDPDuplicates = p.u64(v)
		case "udp_stale":
			t.UDPStale = p.u64(v)
		case "udp_send_errors":
			t.UDPSendErrors = p.u64(v)
		case "udp_loss_exact":
			t.UDPLossExact = v == "true"
		default:
			readRefusalColumn(t, testerHeader[i], v, p)
			readClockColumn(t, testerHeader[i], v, p)
			readChosenColumn(t, testerHeader[i], v)
		}
	}
}

// readEarlyColumns reads stopped_early and stop_reason, by name, when r
// has them (a file written before them reads as no tester stopped early).
func readEarlyColumns(t *TesterRecord, r []string) {
	for i := testerColumnsV2; i < len(r); i++ {
		switch testerHeader[i] {
		case "stopped_early":
			t.StoppedEarly = r[i] == "true"
		case "stop_reason":
			t.StopReason = r[i]
		}
	}
}

// transportOf names how a tester's samples came, for testers.csv.
func transportOf(t *TesterRecord) string {
	if t.UDP {
		return "udp"
	}
	return "tcp"
}

// WriteTesters writes testers.csv and syncs.csv.
func WriteTesters(dir string, ts []*TesterRecord) error {
	err := WriteFile(dir, Testers, func(f io.Writer) error {
		w := csv.NewWriter(f)
		_ = w.Write(testerHeader)
		for _, t := range ts {
			off, rtt, bound := t.ClockFigures()
			row := []string{itoa(t.Slot), t.ID, t.Host, itoa(t.PID), i64(t.LaunchNs), i64(t.StartNs),
				i64(t.StopNs), strconv.FormatBool(t.Failed), t.FailureReason, u64(t.Sent), u64(t.Received),
				u64(t.Lost()), itoa(len(t.Syncs)), ftoa(off), ftoa(rtt), ftoa(bound), i64(t.PlannedNs),
				ftoa(float64(t.StartSkewNs()) / 1e6), i64(t.InjectedOff), strconv.FormatFloat(t.InjectedDrift, 'g', -1, 64),
				strconv.FormatFloat(float64(t.TargetRTTNs)/1e6, 'f', 6, 64),
				transportOf(t), u64(t.UDPDatagrams), u64(t.UDPLost), u64(t.UDPLate), u64(t.UDPDuplicates),
				u64(t.UDPStale), u64(t.UDPSendErrors), strconv.FormatBool(t.UDPLossExact),
				strconv.FormatBool(t.StoppedEarly), t.StopReason}
			row = append(row, refusalFields(t)...)
			row = append(row, strconv.FormatBool(t.ClockAuth), u64(t.ClockRefused), t.ClockSuspect, u64(t.ClockSyncsRefused))
			_ = w.Write(append(row, t.Site, t.Chosen))
		}
		w.Flush()
		return w.Error()
	})
	if err != nil {
		return err
	}
	return WriteFile(dir, Syncs, func(f io.Writer) error {
		w := csv.NewWriter(f)
		_ = w.Write([]string{"index", "local_ns", "offset_ns", "rtt_ns", "error_bound_ns"})
		for _, t := range ts {
			for _, s := range t.Syncs {
				_ = w.Write([]string{itoa(t.Slot), i64(s.LocalNs), i64(s.OffsetNs), i64(s.RTTNs), i64(s.BoundNs)})
			}
		}
		w.Flush()
		return w.Error()
	})
}

// ReadTesters reads testers.csv and syncs.csv back.
func ReadTesters(dir string) ([]*TesterRecord, error) {
	rows, err := readCSV(filepath.Join(dir, Testers), testerHeader, testerColumnsV1)
	if err != nil {
		return nil, err
	}
	bySlot := map[int]*TesterRecord{}
	var out []*TesterRecord
	for _, r := range rows {
		p := parser{}
		t := &TesterRecord{Slot: p.int(r[0]), ID: r[1], Host: r[2], PID: p.int(r[3]), LaunchNs: p.i64(r[4]),
			StartNs: p.i64(r[5]), StopNs: p.i64(r[6]), Failed: r[7] == "true", FailureReason: r[8],
			Sent: p.u64(r[9]), Received: p.u64(r[10]), PlannedNs: p.i64(r[16]),
			InjectedOff: p.i64(r[18]), InjectedDrift: p.f64(r[19])}
		if len(r) > testerColumnsV1 {
			t.TargetRTTNs = int64(math.Round(p.f64(r[20]) * 1e6))
		}
		readUDPColumns(t, r, &p)
		readEarlyColumns(t, r)
		readSiteColumn(t, r)
		if p.err != nil {
			return nil, fmt.Errorf("%s: tester %s: %w", Testers, r[0], p.err)
		}
		bySlot[t.Slot] = t
		out = append(out, t)
	}
	syncs, err := readCSV(filepath.Join(dir, Syncs), []string{"index", "local_ns", "offset_ns", "rtt_ns", "error_bound_ns"}, 5)
	if err != nil {
		return nil, err
	}
	for _, r := range syncs {
		p := parser{}
		slot := p.int(r[0])
		rec := clock.Record{LocalNs: p.i64(r[1]), OffsetNs: p.i64(r[2]), RTTNs: p.i64(r[3]), BoundNs: p.i64(r[4])}
		if t := bySlot[slot]; t != nil && p.err == nil {
			t.Syncs = append(t.Syncs, rec)
		} else {
			return nil, fmt.Errorf("%s: bad row for tester %s: %v", Syncs, r[0], p.err)
		}
	}
	return out, nil
}

// readCSV reads a CSV file whose header is header or, for a file written
// before columns were added, its first required columns; every row has as
// many fields as the file's header.
func readCSV(path string, header []string, required int) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	got, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(got) < required || len(got) > len(header) {
		return nil, fmt.Errorf("%s: %d columns, want %d to %d", path, len(got), required, len(header))
	}
	for i := range got {
		if got[i] != header[i] {
			return nil, fmt.Errorf("%s: column %d is %q, want %q", path, i+1, got[i], header[i])
		}
	}
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

type parser struct{ err error }

func (p *parser) i64(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil && p.err == nil {
		p.err = err
	}
	return v
}

// u64 parses an unsigned count: counts are written as uint64 and must
// read back whole, past math.MaxInt64 too.
func (p *parser) u64(s string) uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil && p.err == nil {
		p.err = err
	}
	return v
}

func (p *parser) f64(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && p.err == nil {
		p.err = err
	}
	return v
}

func (p *parser) int(s string) int { return int(p.i64(s)) }

func itoa(v int) string     { return strconv.Itoa(v) }
func i64(v int64) string    { return strconv.FormatInt(v, 10) }
func u64(v uint64) string   { return strconv.FormatUint(v, 10) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
