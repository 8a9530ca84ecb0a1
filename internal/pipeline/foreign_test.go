package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/rundir"
)

// foreignDir is internal/rundir's small run and its samples.parquet as
// DuckDB, pyarrow and Polars write it back (see its gen.py).
var foreignDir = filepath.Join("..", "rundir", "testdata", "foreign")

// foreignRun copies the small run to a new directory, with samples.parquet
// replaced by file ("" keeps diperf's own).
func foreignRun(t *testing.T, file string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{rundir.Experiment, rundir.Testers, rundir.Syncs, rundir.Events, rundir.Samples} {
		src := filepath.Join(foreignDir, "run", name)
		if name == rundir.Samples && file != "" {
			src = filepath.Join(foreignDir, file)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestForeignParquetAnalyzesTheSame analyzes the run with samples.parquet
// as each tool writes it back: the summary must be the original's; a file
// with a wrong column type, or malformed, is refused as such (no panic).
func TestForeignParquetAnalyzesTheSame(t *testing.T) {
	t.Parallel()
	want, err := Analysis(foreignRun(t, ""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want.Summary.Samples.Total == 0 || want.Summary.Samples.Failed == 0 {
		t.Fatalf("the original's summary: %+v; want ok and failed calls", want.Summary.Samples)
	}
	files, _ := filepath.Glob(filepath.Join(foreignDir, "*.parquet"))
	for _, path := range files {
		file := filepath.Base(path)
		got, err := Analysis(foreignRun(t, file), Options{})
		switch {
		case strings.HasPrefix(file, "bad_") && (err == nil || !strings.Contains(err.Error(), "column ") || errs.Code(err) == errs.CodeUsage):
			t.Errorf("%s: %v; want a refusal that names the column", file, err)
		case strings.HasPrefix(file, "malformed_") && (err == nil || errs.Code(err) == errs.CodeUsage):
			t.Errorf("%s: %v; want it refused as malformed", file, err)
		}
		if strings.HasPrefix(file, "bad_") || strings.HasPrefix(file, "malformed_") {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("%s: the summary differs from the original's:\n got %+v\nwant %+v", file, got.Summary, want.Summary)
		}
	}
}
