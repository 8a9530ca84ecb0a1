package testbed

import (
	"context"
	"fmt"
)

var _ CPUProber = (*SSH)(nil)

// IdleCPU measures a prepared host's idle CPU over cpuWindow, from its
// /proc/stat read twice in one session of its SSH connection.
func (t *SSH) IdleCPU(ctx context.Context, host string) (float64, error) {
	t.mu.Lock()
	h := t.ready[host]
	t.mu.Unlock()
	if h == nil {
		return 0, fmt.Errorf("ssh testbed: %s is not a prepared host", host)
	}
	type answer struct {
		out []byte
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		out, err := h.run(cpuScript, nil)
		ch <- answer{out, err}
	}()
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case a := <-ch:
		if a.err != nil {
			return 0, fmt.Errorf("reading /proc/stat on %s: %w", host, a.err)
		}
		return idleFromScript(a.out)
	}
}
