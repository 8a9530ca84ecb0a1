package rundir

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"
)

// Selection is selection.csv: testbed.select's decision on every
// candidate host, the chosen first in order of choice.
const Selection = "selection.csv"

// SelectRow is one candidate host's decision.
type SelectRow struct {
	Order        int    // 1, 2, ... in order of choice; 0: left out
	Host         string // as the testbed names it
	Site         string // its sensor's site ("": not known)
	Chosen       bool
	Reason       string  // why chosen or left out
	BandwidthBps float64 // toward the target (0: not known)
	LatencyMs    float64 // toward the target (0: not known)
	Basis        string  // where the figures come from
	IdleCPU      float64 // percent (NaN: not checked)
}

// selectionHeader is selection.csv's header; it is read by name.
var selectionHeader = []string{"order", "host", "site", "chosen", "reason", "bandwidth_bps", "latency_ms", "basis", "idle_cpu_pct"}

// MaxReason bounds a selection's reason in bytes (placement cuts longer
// ones): a longer one read back, or one not valid UTF-8, is refused.
const MaxReason = 4096

// maxSelectRows bounds the candidates read back: more than any testbed
// lists (MaxTesters hosts).
const maxSelectRows = 1 << 17

// WriteSelection writes selection.csv (figures not known are empty).
func WriteSelection(dir string, rows []SelectRow) error {
	return WriteFile(dir, Selection, func(f io.Writer) error {
		w := csv.NewWriter(f)
		_ = w.Write(selectionHeader)
		for _, r := range rows {
			_ = w.Write([]string{itoa(r.Order), r.Host, r.Site, strconv.FormatBool(r.Chosen), r.Reason,
				known(r.BandwidthBps, 0), known(r.LatencyMs, 3), r.Basis, cpuText(r.IdleCPU)})
		}
		w.Flush()
		return w.Error()
	})
}

// known writes v with prec decimals, "" when it is not known (≤ 0 or NaN).
func known(v float64, prec int) string {
	if math.IsNaN(v) || v <= 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// cpuText writes an idle share, "" when not checked (NaN).
func cpuText(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// ReadSelection reads selection.csv by its header: nil and no error when
// the run chose no hosts (no file). A figure beyond what a link or a CPU
// can have is refused with the file's error.
func ReadSelection(dir string) ([]SelectRow, error) {
	path := filepath.Join(dir, Selection)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	if _, ok := col["host"]; !ok {
		return nil, fmt.Errorf("%s: no host column", path)
	}
	var out []SelectRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(out) == maxSelectRows {
			return nil, fmt.Errorf("%s: more than %d candidates", path, maxSelectRows)
		}
		r, err := selectRow(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		out = append(out, r)
	}
}

// selectRow decodes one record of selection.csv by the header's columns.
func selectRow(rec []string, col map[string]int) (SelectRow, error) {
	get := func(name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	r := SelectRow{Host: get("host"), Site: get("site"), Chosen: get("chosen") == "true", Reason: get("reason"), Basis: get("basis"), IdleCPU: math.NaN()}
	for _, f := range []string{r.Host, r.Site, r.Reason, r.Basis} {
		if len(f) > MaxReason || !utf8.ValidString(f) {
			return r, fmt.Errorf("a field of %d bytes, or not UTF-8: at most %d bytes of UTF-8", len(f), MaxReason)
		}
	}
	if s := get("order"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxSelectRows {
			return r, fmt.Errorf("order %q is not a rank", s)
		}
		r.Order = n
	}
	for _, num := range []struct {
		name string
		v    *float64
		max  float64
	}{{"bandwidth_bps", &r.BandwidthBps, 1e13}, {"latency_ms", &r.LatencyMs, 6e4}, {"idle_cpu_pct", &r.IdleCPU, 100}} {
		s := get(num.name)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > num.max {
			return r, fmt.Errorf("%s %q is not one a link or a CPU can have", num.name, s)
		}
		*num.v = v
	}
	return r, nil
}

// readChosenColumn reads testers.csv's chosen column (a file written
// before it reads as a run without selection); a reason longer than
// MaxReason or not UTF-8 is not kept.
func readChosenColumn(t *TesterRecord, name, v string) {
	if name == "chosen" && len(v) <= MaxReason && utf8.ValidString(v) {
		t.Chosen = v
	}
}
