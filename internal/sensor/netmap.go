package sensor

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Row is one ordered pair of the network map: `diperf netmap --json`
// writes a list of them.
type Row struct {
	Src          string    `json:"src"`
	Dst          string    `json:"dst"`
	BandwidthBps float64   `json:"bandwidth_bps"`
	LatencyMs    float64   `json:"latency_ms"`
	MeasuredAt   time.Time `json:"measured_at"`
	Estimated    bool      `json:"estimated"`
	Via          []string  `json:"via,omitempty"`
	Basis        string    `json:"basis"` // BasisMeasured, BasisHierarchy or BasisReverse (error unknown: not to be used)
}

// Map is the latest matrix between the live sensors: every ordered pair
// measured directly or estimated along the hierarchy (a pair with neither
// is left out), by source then destination.
func Map(m Measured, peers []Peer) []Row {
	var live []Peer
	for _, p := range peers {
		if !p.Stale {
			live = append(live, p)
		}
	}
	slices.SortFunc(live, func(a, b Peer) int { return cmp.Compare(a.Name, b.Name) })
	var rows []Row
	h := newHierarchy(live)
	for _, s := range live {
		for _, d := range live {
			if s.Name == d.Name {
				continue
			}
			if l, ok := h.estimate(m, s.Name, d.Name); ok {
				rows = append(rows, RowOf(s.Name, d.Name, l))
			}
		}
	}
	return rows
}

// RowOf is the map's row of src → dst for l.
func RowOf(src, dst string, l Link) Row {
	return Row{Src: src, Dst: dst, BandwidthBps: l.BandwidthBps, LatencyMs: l.LatencyMs,
		MeasuredAt: l.At, Estimated: l.Estimated, Via: l.Via, Basis: l.Basis}
}

// Usable says whether the row's figures may be used for its direction:
// not when taken from the other direction (Link.Usable).
func (r Row) Usable() bool { return r.Basis != BasisReverse }

// names returns the sensors of rows, sorted.
func names(rows []Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Src, r.Dst)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// WriteTable writes the map as a matrix on the terminal: a row per
// source, a column per destination, each cell bandwidth/latency, with *
// for an estimate.
func WriteTable(w io.Writer, rows []Row) error {
	ns := names(rows)
	cell := map[[2]string]Row{}
	for _, r := range rows {
		cell[[2]string{r.Src, r.Dst}] = r
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "src \\ dst\t%s\t\n", strings.Join(ns, "\t"))
	for _, s := range ns {
		fmt.Fprintf(tw, "%s\t", s)
		for _, d := range ns {
			r, ok := cell[[2]string{s, d}]
			switch {
			case s == d:
				fmt.Fprint(tw, "-\t")
			case !ok:
				fmt.Fprint(tw, "?\t")
			default:
				mark := ""
				switch {
				case !r.Usable():
					mark = "r"
				case r.Estimated:
					mark = "*"
				}
				fmt.Fprintf(tw, "%s/%s%s\t", bits(r.BandwidthBps), LatencyText(r.LatencyMs), mark)
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "bandwidth (bit/s) / latency; * estimated along the hierarchy; r reverse (error unknown): only the other direction is measured, not used for this one; ? not known")
	return err
}

// bits writes a bandwidth in bit/s with a k/M/G suffix.
func bits(bps float64) string {
	switch {
	case !known(bps):
		return unknownText
	case bps >= 1e9:
		return fmt.Sprintf("%.2fG", bps/1e9)
	case bps >= 1e6:
		return fmt.Sprintf("%.1fM", bps/1e6)
	case bps >= 1e3:
		return fmt.Sprintf("%.0fk", bps/1e3)
	}
	return fmt.Sprintf("%.0f", bps)
}

// HeatMapSVG draws the map's bandwidths as a heat map: a cell per
// ordered pair, darker for more bandwidth (log scale between the map's
// least and most), its value written in it, estimates hatched.
func HeatMapSVG(rows []Row) []byte {
	ns := names(rows)
	const cellW, cellH, left, top = 64, 28, 110, 110
	lo, hi := math.Inf(1), 0.0
	for _, r := range rows {
		if known(r.BandwidthBps) && r.Usable() {
			lo, hi = min(lo, r.BandwidthBps), max(hi, r.BandwidthBps)
		}
	}
	w, h := left+cellW*len(ns)+20, top+cellH*len(ns)+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	b.WriteString(`<defs><pattern id="est" width="6" height="6" patternUnits="userSpaceOnUse"><path d="M0 6L6 0" stroke="#fff" stroke-width="1"/></pattern></defs>` + "\n")
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="10" y="20" font-size="14" font-weight="bold">Bandwidth between sensors (bit/s; hatched: estimated)</text>`+"\n")
	idx := map[string]int{}
	for i, n := range ns {
		idx[n] = i
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, top+i*cellH+cellH/2+4, esc(n))
		fmt.Fprintf(&b, `<text transform="translate(%d %d) rotate(-45)">%s</text>`+"\n", left+i*cellW+cellW/2, top-6, esc(n))
	}
	for _, r := range rows {
		x, y := left+idx[r.Dst]*cellW, top+idx[r.Src]*cellH
		shade, fill, label := shadeOf(r.BandwidthBps, lo, hi), "#1f77b4", bits(r.BandwidthBps)
		if !r.Usable() { // the other direction's figure: grey, and said so
			shade, fill, label = 0.3, "#888", label+" r"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" fill-opacity="%.2f" stroke="#fff"/>`+"\n", x, y, cellW, cellH, fill, shade)
		if r.Estimated {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="url(#est)"/>`+"\n", x, y, cellW, cellH)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", x+cellW/2, y+cellH/2+4, label)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d">rows: source; columns: destination; grey, r: reverse (error unknown), only the other direction measured</text>`+"\n", left, top+cellH*len(ns)+24)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
