package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// MaxCommandOutput bounds a command endpoint's output: more is a failed
// scrape (the command is killed). The output is read as it comes, a line
// at a time, never held whole.
const MaxCommandOutput = 1 << 20

// errOutputTooLarge is an output past MaxCommandOutput.
var errOutputTooLarge = errors.New("output larger than 1 MiB")

// command runs ep's command once on ep's host and reads its counters, or
// its output as Prometheus text, from what it prints (docs/monitor.md,
// format command). A command that exits with another status than 0, that
// outlives ctx (the scrape's timeout), or whose output lacks a counter
// fails the scrape; a failed scrape keeps no series.
func (s *Scraper) command(ctx context.Context, ep Endpoint) ([]Series, int, error) {
	src := ep.Command
	if src == nil || len(src.Argv) == 0 {
		return nil, 0, errors.New("command: no command to run")
	}
	series, dropped, err := s.runCommand(ctx, ep)
	if err == nil {
		return series, dropped, nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("did not finish within %v, killed: %w", ep.Interval*9/10, err)
	}
	return nil, 0, fmt.Errorf("command %s: %w", src.Argv[0], err)
}

// runCommand starts ep's command and reads its output to its end.
func (s *Scraper) runCommand(ctx context.Context, ep Endpoint) ([]Series, int, error) {
	run := s.Exec
	if run == nil {
		run = LocalExec
	}
	rc, err := run(ctx, ep.Host, ep.Command.Argv)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	out := &outputCap{r: rc, left: MaxCommandOutput}
	if ep.Command.Prometheus {
		k := endpointKeeper(ep)
		if err := scanPrometheus(out, k.add); err != nil {
			return nil, 0, err
		}
		kept, dropped := k.result()
		return kept, dropped, nil
	}
	series, err := readCounters(out, ep.Command.Counters)
	return series, 0, err
}

// outputCap reads at most left more bytes of a command's output.
type outputCap struct {
	r    io.Reader
	left int64
}

func (c *outputCap) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errOutputTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, errOutputTooLarge
	}
	return n, err
}
