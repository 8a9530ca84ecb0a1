// Package report renders an analyzed run as one self-contained HTML page:
// the summary table, DiPerF's charts drawn as inline SVG by a small plotter
// of its own, and the per-tester table. The page needs no network, script,
// font or style sheet from elsewhere, and stays small whatever the run size.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"

	"github.com/diperf/diperf/internal/analyze"
)

// FileName is the name WriteFile gives the report in its directory.
const FileName = "report.html"

// maxRows bounds the rows of the per-tester table.
const maxRows = 1000

// page is what the template draws.
type page struct {
	Name      string
	Stats     []statRow
	Facts     []fact
	Footnotes []string
	Figures   []figure
	Testers   []testerRow
	Omitted   int // testers left out of the table
}

// figure is one chart with its caption.
type figure struct {
	SVG     template.HTML // built by chart.svg, which escapes all text
	Caption string
}

// Render writes the report page for r to w.
func Render(w io.Writer, r *analyze.Result) error {
	if r == nil {
		return errors.New("report: nil result")
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, buildPage(r)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteFile writes the report page for r to dir/report.html, atomically: it
// renders into a temporary file in dir and renames it into place.
func WriteFile(dir string, r *analyze.Result) (err error) {
	f, err := os.CreateTemp(dir, ".report-*.tmp")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err = Render(f, r); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err = os.Rename(f.Name(), filepath.Join(dir, FileName)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// buildPage gathers everything the template shows.
func buildPage(r *analyze.Result) *page {
	p := &page{Name: r.Name}
	p.Stats = statRows(&r.Summary)
	p.Facts, p.Footnotes = facts(&r.Summary)
	p.Figures = figures(r)
	p.Testers, p.Omitted = testerRows(r.Clients, maxRows)
	return p
}

// figures renders the four charts with their captions.
func figures(r *analyze.Result) []figure {
	q := num(r.Summary.QuantumS)
	sat := "Dashed red lines mark the saturation point."
	if !r.Summary.Saturation.Saturated {
		sat = "The service never saturated."
	}
	return []figure{
		{template.HTML(timelineChart(r).svg()), "Figure 1. Offered load (calls in flight) and response time (ms, " +
			"mean of the successful calls) on the left axis, throughput (successful calls/s) on the right, per " +
			q + " s quantum since the first tester started. Thin light lines: per-quantum values; thick lines: " +
			"centered moving averages over " + itoa(maWindow) + " quanta."},
		{template.HTML(testersChart(r).svg()), "Figure 2. Per tester, in start order: ok and failed calls " +
			"(stacked bars) and service utilization (the tester's share of all successful calls completed while " +
			"it was active, right axis). A red × marks a tester that failed."},
		{template.HTML(saturationChart(r).svg()), "Figure 3. Throughput against offered load, one point per " +
			"quantum. " + sat},
		{template.HTML(clockChart(r).svg()), clockCaption(r)},
	}
}
