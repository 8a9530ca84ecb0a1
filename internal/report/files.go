package report

import (
	"fmt"
	"io"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/rundir"
)

// WriteFile writes the report page for r (and m, the model fitted to it,
// nil when there is none) to dir's report.html, and each graph beside it
// (rundir.GraphFile), each through the run directory's atomic writer. The
// testers' health (dir's health.csv) is drawn under graph (a); without
// it, the page says it was not recorded. A capacity search's path (dir's
// search.json) is drawn in a section of its own.
func WriteFile(dir string, r *analyze.Result, m *model.Model) error {
	if r == nil {
		return errNilResult
	}
	p := buildPage(r, m, readHealth(dir, r))
	p.addSearch(r, readSearch(dir))
	p.Selection = readSelection(dir)
	for _, f := range p.allFigures() {
		svg := standalone(string(f.SVG))
		if err := rundir.WriteFile(dir, f.File, func(w io.Writer) error {
			if _, err := w.Write(svg); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return rundir.WriteFile(dir, rundir.Report, p.write)
}
