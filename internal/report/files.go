package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
)

// WriteFile writes the report page for r (and m, the model fitted to it,
// nil when there is none) to dir/report.html, and each graph to
// dir/<id>.svg beside it. Every file is written atomically: rendered into
// a temporary file in dir, synced and renamed into place.
func WriteFile(dir string, r *analyze.Result, m *model.Model) error {
	if r == nil {
		return errNilResult
	}
	p := buildPage(r, m)
	for _, f := range p.Figures {
		svg := standalone(string(f.SVG))
		if err := writeAtomic(dir, f.File, func(w io.Writer) error {
			if _, err := w.Write(svg); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return writeAtomic(dir, FileName, p.write)
}

// writeAtomic writes dir/name with write, by way of a temporary file in dir
// that is renamed into place, readable by all like the run's other files.
func writeAtomic(dir, name string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err = os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
