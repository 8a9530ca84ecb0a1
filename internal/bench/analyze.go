package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// AnalyzeOptions configure the analyzer benchmark.
type AnalyzeOptions struct {
	Synth SynthOptions
	Dir   string // where to write the synthetic run ("" = a temporary directory)
	Keep  bool   // keep the run directory afterwards
	Exe   string // the diperf binary that analyzes it, in a process of its own
}

// AnalyzeResult holds the figures of the analyzer benchmark.
type AnalyzeResult struct {
	Bench       string  `json:"bench"`
	Samples     int64   `json:"samples"`
	Testers     int     `json:"testers"`
	FileMB      float64 `json:"file_mb"`       // size of samples.parquet
	GenerateS   float64 `json:"generate_s"`    // writing the synthetic run (not measured below)
	AnalyzeS    float64 `json:"analyze_s"`     // `diperf analyze` wall time: read, every metric, model, files, report
	SamplesPerS float64 `json:"samples_per_s"` // Samples / AnalyzeS
	PeakRSSMB   float64 `json:"peak_rss_mb"`   // the analyzing process's peak resident memory
	Dir         string  `json:"dir,omitempty"` // the run directory, when kept
}

// Analyze writes a synthetic run of o.Synth and times `diperf analyze` on
// it in a child process, whose peak memory the kernel reports.
func Analyze(ctx context.Context, o AnalyzeOptions, progress io.Writer) (AnalyzeResult, error) {
	r := AnalyzeResult{Bench: "analyze", Samples: o.Synth.Samples, Testers: o.Synth.Testers}
	dir := o.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "diperf-bench-analyze-")
		if err != nil {
			return r, err
		}
		dir = filepath.Join(tmp, "run")
	}
	if !o.Keep {
		defer os.RemoveAll(dir)
	} else {
		r.Dir = dir
	}
	fmt.Fprintf(progress, "writing a synthetic run of %d samples from %d testers in %s ...\n", o.Synth.Samples, o.Synth.Testers, dir)
	t0 := time.Now()
	if err := WriteSynthRun(dir, o.Synth); err != nil {
		return r, err
	}
	r.GenerateS = round(time.Since(t0).Seconds(), 3)
	if st, err := os.Stat(filepath.Join(dir, rundir.Samples)); err == nil {
		r.FileMB = round(float64(st.Size())/(1<<20), 3)
	}
	fmt.Fprintf(progress, "wrote it in %.1f s (%.0f MB); analyzing ...\n", r.GenerateS, r.FileMB)
	cmd := exec.CommandContext(ctx, o.Exe, "analyze", dir)
	cmd.Stdout, cmd.Stderr = io.Discard, progress
	t0 = time.Now()
	if err := cmd.Run(); err != nil {
		return r, fmt.Errorf("bench: diperf analyze: %w", err)
	}
	r.AnalyzeS = round(time.Since(t0).Seconds(), 3)
	r.SamplesPerS = float64(int64(float64(r.Samples) / r.AnalyzeS))
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSSMB = round(float64(ru.Maxrss)/1024, 3) // Linux reports KiB
	}
	return r, nil
}
