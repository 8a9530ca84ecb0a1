package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times
// (100 on every Linux architecture Go runs on).
const clockTicks = 100

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
