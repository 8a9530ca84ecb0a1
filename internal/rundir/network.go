package rundir

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NetRow is one row of network.csv: the sensor mesh's latest figures for
// one ordered pair of sensors (a tester host and the target), measured or
// estimated along the mesh's hierarchy (then Via names the hops).
type NetRow struct {
	Src, Dst     string
	BandwidthBps float64
	LatencyMs    float64 // 0: none known
	MeasuredAt   time.Time
	Estimated    bool
	Via          []string
	Basis        string // measured, hierarchy, or reverse (error unknown: never written, skipped when read); "" before the column
}

// NetBasisReverse is network.csv's basis of a figure taken from the other
// direction: its error is unknown, so it is never a figure of the run.
const NetBasisReverse = "reverse"

// Usable says whether the row's figures may be used: not when taken from
// the other direction.
func (r NetRow) Usable() bool { return r.Basis != NetBasisReverse }

// networkHeader is network.csv's header; it is read by name.
var networkHeader = []string{"src", "dst", "bandwidth_bps", "latency_ms", "measured_at", "estimated", "via", "basis"}

// WriteNetwork writes network.csv: a header, then rows (latency_ms empty
// when unknown, via the hops joined by spaces), leaving out any row not
// Usable.
func WriteNetwork(dir string, rows []NetRow) error {
	return WriteFile(dir, Network, func(f io.Writer) error {
		w := csv.NewWriter(f)
		_ = w.Write(networkHeader)
		for _, r := range rows {
			if !r.Usable() {
				continue
			}
			lat := ""
			if r.LatencyMs > 0 {
				lat = strconv.FormatFloat(r.LatencyMs, 'f', -1, 64)
			}
			at := ""
			if !r.MeasuredAt.IsZero() {
				at = r.MeasuredAt.UTC().Format(time.RFC3339Nano)
			}
			_ = w.Write([]string{r.Src, r.Dst, strconv.FormatFloat(r.BandwidthBps, 'f', 0, 64), lat, at,
				strconv.FormatBool(r.Estimated), strings.Join(r.Via, " "), r.Basis})
		}
		w.Flush()
		return w.Error()
	})
}

// ReadNetwork reads network.csv by its header (columns in any order,
// unknown ones ignored; src and dst required). A run without the file has
// no rows and the error wraps fs.ErrNotExist.
func ReadNetwork(dir string) ([]NetRow, error) {
	path := filepath.Join(dir, Network)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, need := range []string{"src", "dst"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no %s column", path, need)
		}
	}
	out := make([]NetRow, 0, len(recs)-1)
	for n, rec := range recs[1:] {
		r, err := netRow(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, n+2, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// netRow decodes one record of network.csv by the header's columns col.
func netRow(rec []string, col map[string]int) (NetRow, error) {
	get := func(name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	r := NetRow{Src: get("src"), Dst: get("dst"), Estimated: get("estimated") == "true", Basis: get("basis")}
	if via := strings.Fields(get("via")); len(via) > 0 {
		r.Via = via
	}
	var err error
	for _, num := range []struct {
		name string
		v    *float64
	}{{"bandwidth_bps", &r.BandwidthBps}, {"latency_ms", &r.LatencyMs}} {
		if s := get(num.name); s != "" {
			if *num.v, err = strconv.ParseFloat(s, 64); err != nil {
				return r, fmt.Errorf("%s: %w", num.name, err)
			}
		}
	}
	if s := get("measured_at"); s != "" {
		if r.MeasuredAt, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return r, fmt.Errorf("measured_at: %w", err)
		}
	}
	return r, nil
}

// NetPair returns the row of rows from src to dst, if there is a Usable
// one (a row taken from the other direction is no figure of the pair).
func NetPair(rows []NetRow, src, dst string) (NetRow, bool) {
	i := slices.IndexFunc(rows, func(r NetRow) bool { return r.Src == src && r.Dst == dst && r.Usable() })
	if i < 0 {
		return NetRow{}, false
	}
	return rows[i], true
}
