package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// procMem reads a process's resident memory now and its peak, in bytes,
// from /proc/PID/status (VmRSS, VmHWM).
func procMem(pid int) (rss, hwm uint64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if k == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	return rss, hwm, sc.Err()
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times
// (100 on every Linux architecture Go runs on).
const clockTicks = 100

// procCPU reads a process's user+system CPU time so far from
// /proc/PID/stat (fields 14 and 15, after the parenthesized command name).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("bench: unreadable /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("bench: short /proc stat")
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// waitEvent polls dir's events.jsonl until an event named name appears
// and returns its detail; alive is asked between polls and ends the wait
// with its error.
func waitEvent(dir, name string, timeout time.Duration, alive func() error) (string, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if d, ok := findEvent(filepath.Join(dir, rundir.Events), name); ok {
			return d, nil
		}
		if err := alive(); err != nil {
			return "", err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", fmt.Errorf("bench: the controller logged no %q event within %v", name, timeout)
}

func findEvent(path, name string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	for line := range bytes.Lines(b) {
		var e rundir.Event
		if json.Unmarshal(line, &e) == nil && e.Event == name {
			return e.Detail, true
		}
	}
	return "", false
}

// tail returns the last n lines of a file, for an error message.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
