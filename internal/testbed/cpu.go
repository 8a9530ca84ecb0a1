package testbed

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// CPUProber is a testbed that can check a host's idle CPU before the run
// (testbed.select.min_idle_cpu): the idle share of every CPU of the host
// over cpuWindow, in percent. Host is a name of Ready.Hosts.
type CPUProber interface {
	IdleCPU(ctx context.Context, host string) (float64, error)
}

// cpuWindow is how long the idle share is measured over.
const cpuWindow = time.Second

// cpuScript prints /proc/stat's first line (every CPU summed) twice,
// cpuWindow apart.
const cpuScript = "head -n 1 /proc/stat && sleep 1 && head -n 1 /proc/stat"

// IdleShare is the idle share, in percent, between two of /proc/stat's
// "cpu" lines taken in order: the idle and iowait ticks over every tick.
func IdleShare(before, after string) (float64, error) {
	a, err := cpuTicks(before)
	if err != nil {
		return 0, err
	}
	b, err := cpuTicks(after)
	if err != nil {
		return 0, err
	}
	var total, idle uint64
	for i := range a {
		if b[i] < a[i] {
			return 0, fmt.Errorf("/proc/stat: its ticks went back (field %d: %d, then %d)", i+1, a[i], b[i])
		}
		total += b[i] - a[i]
		if i == 3 || i == 4 { // idle, iowait
			idle += b[i] - a[i]
		}
	}
	if total == 0 {
		return 0, fmt.Errorf("/proc/stat: no tick passed in %v", cpuWindow)
	}
	return 100 * float64(idle) / float64(total), nil
}

// cpuTicks reads the first eight counters of a "cpu" line of /proc/stat
// (user nice system idle iowait irq softirq steal).
func cpuTicks(line string) ([8]uint64, error) {
	var t [8]uint64
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return t, fmt.Errorf("/proc/stat: want a line \"cpu\" and 8 counters, got %q", line)
	}
	for i := range t {
		v, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil {
			return t, fmt.Errorf("/proc/stat: counter %d: %w", i+1, err)
		}
		t[i] = v
	}
	return t, nil
}

// idleFromScript reads cpuScript's output.
func idleFromScript(out []byte) (float64, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return 0, fmt.Errorf("/proc/stat: want two lines, got %q", out)
	}
	return IdleShare(lines[0], lines[1])
}

// IdleCPU measures this machine's idle CPU over cpuWindow; host must be
// LocalHost.
func (l *Local) IdleCPU(ctx context.Context, host string) (float64, error) {
	if host != LocalHost {
		return 0, fmt.Errorf("the local testbed has no host %q", host)
	}
	first := func() (string, error) {
		b, err := os.ReadFile("/proc/stat")
		line, _, _ := strings.Cut(string(b), "\n")
		return line, err
	}
	a, err := first()
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(cpuWindow):
	}
	b, err := first()
	if err != nil {
		return 0, err
	}
	return IdleShare(a, b)
}
