package tree

import (
	"encoding/csv"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Point is one row of the controller-scaling CSV: samples (transactions)
// per second one controller took from so many testers over a transport.
// Source says where the figure comes from: "measured", "placeholder" (a
// target drawn until it is measured) or "thesis" (DiPerF's own, drawn
// dashed).
type Point struct {
	Transport string
	Testers   float64
	PerS      float64
	Source    string
}

// ReadScaling reads the CSV header transport,testers,samples_per_s,source
// and its rows.
func ReadScaling(r io.Reader) ([]Point, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("scaling csv: %w", err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "transport,testers,samples_per_s,source" {
		return nil, errors.New("scaling csv: the header must be transport,testers,samples_per_s,source")
	}
	var out []Point
	for i, row := range rows[1:] {
		n, err1 := strconv.ParseFloat(row[1], 64)
		x, err2 := strconv.ParseFloat(row[2], 64)
		if err := errors.Join(err1, err2); err != nil || !(n > 0) || !(x > 0) || math.IsInf(n, 1) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("scaling csv line %d: testers and samples_per_s must be positive finite numbers (%v)", i+2, err)
		}
		out = append(out, Point{Transport: row[0], Testers: n, PerS: x, Source: row[3]})
	}
	return out, nil
}

// plot geometry, px.
const (
	plotW, plotH                   = 680.0, 440.0
	padL, padR, padT, padB         = 70.0, 190.0, 40.0, 50.0
	decadeLo, decadeHiX, decadeHiY = 0, 6, 7
)

var transportColor = map[string]string{"tcp": "#1f77b4", "udp": "#2ca02c", "ssh": "#d62728"}

// ScalingSVG draws the points like the thesis' Figure 18: samples/s
// against testers, both axes logarithmic, one line per transport and
// source, DiPerF's own points dashed.
func ScalingSVG(points []Point) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%g" y="22" font-size="14" font-weight="bold">One controller: samples/s against testers (log-log)</text>`+"\n", padL)
	logAxes(&b)
	for i, s := range seriesOf(points) {
		drawSeries(&b, s, i)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// xAt and yAt map values to pixels.
func xAt(v float64) float64 {
	return padL + (math.Log10(v)-decadeLo)/(decadeHiX-decadeLo)*(plotW-padL-padR)
}
func yAt(v float64) float64 {
	return plotH - padB - (math.Log10(v)-decadeLo)/(decadeHiY-decadeLo)*(plotH-padT-padB)
}

// logAxes draws the frame, a grid line and label per decade, and titles.
func logAxes(b *strings.Builder) {
	x0, x1, y0, y1 := xAt(1), xAt(math.Pow(10, decadeHiX)), yAt(1), yAt(math.Pow(10, decadeHiY))
	for d := decadeLo; d <= decadeHiX; d++ {
		x := xAt(math.Pow(10, float64(d)))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, y0, x, y1, x, y0+16, decade(d))
	}
	for d := decadeLo; d <= decadeHiY; d++ {
		y := yAt(math.Pow(10, float64(d)))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0, y, x1, y, x0-6, y+4, decade(d))
	}
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", x0, y1, x1-x0, y0-y1)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">testers (concurrent connections)</text>`+"\n", (x0+x1)/2, plotH-12)
	fmt.Fprintf(b, `<text transform="translate(18 %.1f) rotate(-90)" text-anchor="middle">samples (transactions) per second</text>`+"\n", (y0+y1)/2)
}

// decade labels 10^d as 1, 10, 100, 1k … 10M.
func decade(d int) string {
	return [...]string{"1", "10", "100", "1k", "10k", "100k", "1M", "10M"}[d]
}

// series is the points of one transport from one source, by testers.
type series struct {
	transport, source string
	points            []Point
}

// seriesOf groups points by transport and source, in a stable order.
func seriesOf(points []Point) []series {
	var out []series
	for _, p := range points {
		i := slices.IndexFunc(out, func(s series) bool { return s.transport == p.Transport && s.source == p.Source })
		if i < 0 {
			out = append(out, series{transport: p.Transport, source: p.Source})
			i = len(out) - 1
		}
		out[i].points = append(out[i].points, p)
	}
	for _, s := range out {
		slices.SortFunc(s.points, func(a, b Point) int { return int(math.Copysign(1, a.Testers-b.Testers)) })
	}
	return out
}

// drawSeries draws one series' line, markers and legend entry (row i).
func drawSeries(b *strings.Builder, s series, i int) {
	color := transportColor[s.transport]
	if color == "" {
		color = "#555"
	}
	dash := ""
	if s.source == "thesis" {
		dash = ` stroke-dasharray="6 4"`
	}
	var pts []string
	for _, p := range s.points {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", xAt(p.Testers), yAt(p.PerS)))
	}
	fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), color, dash)
	for _, p := range s.points {
		marker(b, xAt(p.Testers), yAt(p.PerS), color, s.source == "thesis")
	}
	lx, ly := plotW-padR+16, padT+20+18*float64(i)
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`, lx, ly-4, lx+24, ly-4, color, dash)
	marker(b, lx+12, ly-4, color, s.source == "thesis")
	label := strings.ToUpper(s.transport) + " " + s.source
	if s.source == "thesis" {
		label = "DiPerF " + strings.ToUpper(s.transport) + " (thesis)"
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+30, ly, html.EscapeString(label))
}

// marker draws a circle (ours) or a square (the thesis').
func marker(b *strings.Builder, x, y float64, color string, square bool) {
	if square {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="7" height="7" fill="white" stroke="%s" stroke-width="1.5"/>`, x-3.5, y-3.5, color)
		return
	}
	fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`, x, y, color)
}
