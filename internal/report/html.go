// Package report renders an analyzed run as one self-contained HTML page:
// the summary table, DiPerF's graphs drawn as inline SVG by a small plotter
// of its own, and the per-tester table. The page needs no network, script,
// font or style sheet from elsewhere, and stays small whatever the run size:
// what is drawn is thinned or aggregated, never what is computed.
//
// The graphs, each also written beside the page as an .svg file named
// after its element id (GraphIDs):
//
//	(a) offered load, response time and throughput over time, with moving
//	    averages and polynomial approximations;
//	(a2) when the run directory holds health.csv, directly under (a): the
//	    testers' health per second (highest tester CPU, busiest host,
//	    largest schedule lag), the tester-bound quanta shaded;
//	(b) service utilization and fairness per tester;
//	(c) average aggregate load per tester, bubble area = calls completed;
//	(d) response time against network latency per tester, same bubbles;
//	(e) throughput and response time against load, with the fitted model
//	    and the saturation point;
//	(f) the response-time percentile distribution;
//	(g) clock offset and error bound per tester;
//	(h) in an open-model run only: offered against achieved rate per
//	    quantum, with the late and dropped calls;
//	(i) in a run whose clients reported extras only: each key's values
//	    summed per second (e.g. MB/s) per quantum;
//	(m–m3) in a section of their own, "Per host and per site": per tester
//	    host its throughput and response time, ranked, and against its
//	    bandwidth and latency to the target when the sensor mesh gave them;
//	(s1–s3) in a capacity search's run directory (search.json) only, in a
//	    section of their own: the load of each step over time, each SLO's
//	    statistic per step against its objective, the bracket narrowing.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
)

// maxRows bounds the rows of the per-tester table.
const maxRows = 1000

// page is what the template draws.
type page struct {
	Name        string
	Stats       []statRow
	Facts       []fact
	Footnotes   []string
	Figures     []figure
	Testers     []testerRow
	Omitted     int  // testers left out of the table
	Interactive bool // some figure has an interactive chart: the page carries uPlot and charts.js

	// Search is a capacity search's path (search.json); nil: the run
	// was not a search.
	Search *searchSection
	// Hosts is the per-host and per-site view (hosts_page.go); nil: the
	// run had no testers.
	Hosts *hostsSection

	// Selection is testbed.select's choice of hosts (selection.csv);
	// nil: the run chose none.
	Selection *selectionSection
}

// errNilResult refuses to draw nothing.
var errNilResult = errors.New("report: nil result")

// Render writes the report page for r to w; m is the model fitted to r,
// nil when there is none. It draws r alone, as the report of a run that
// recorded no tester health (WriteFile draws that of its directory).
func Render(w io.Writer, r *analyze.Result, m *model.Model) error {
	if r == nil {
		return errNilResult
	}
	return buildPage(r, m, noHealth()).write(w)
}

// write renders the page to w.
func (p *page) write(w io.Writer) error {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// buildPage gathers everything the template shows; h is the testers'
// health from the run directory (nil: none drawn, nothing said).
func buildPage(r *analyze.Result, m *model.Model, h *healthView) *page {
	p := &page{Name: r.Name}
	p.Stats = statRows(&r.Summary)
	p.Facts, p.Footnotes = facts(&r.Summary)
	p.Figures = figures(r, m, h)
	for _, f := range p.Figures {
		p.Interactive = p.Interactive || f.Spec != ""
	}
	p.Testers, p.Omitted = testerRows(r.Clients, maxRows)
	p.addHosts(r)
	return p
}
