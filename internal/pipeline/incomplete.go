package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/diperf/diperf/internal/rundir"
)

// Incomplete returns why dir's run is incomplete: the detail of its
// RecoveredEvent, then of each MergedEvent, "" when it has none (or no
// events.jsonl).
func Incomplete(dir string) (string, error) {
	f, err := os.Open(rundir.Path(dir, rundir.Events))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var why []string
	recovered := false
	for {
		line, err := r.ReadBytes('\n')
		if e, ok := eventOf(line, RecoveredEvent, MergedEvent); ok {
			if e.Event == RecoveredEvent && !recovered {
				recovered = true
				why = append([]string{"the controller stopped before the run ended; " + e.Detail}, why...)
			} else if e.Event == MergedEvent {
				why = append(why, e.Detail)
			}
		}
		if errors.Is(err, io.EOF) {
			if !recovered {
				return "", nil
			}
			return strings.Join(why, "; "), nil
		}
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", rundir.Path(dir, rundir.Events), err)
		}
	}
}

// eventOf decodes line when it is an event of one of kinds.
func eventOf(line []byte, kinds ...string) (rundir.Event, bool) {
	for _, k := range kinds {
		if bytes.Contains(line, []byte(`"`+k+`"`)) {
			var e rundir.Event
			if json.Unmarshal(line, &e) == nil && e.Event == k {
				return e, true
			}
		}
	}
	return rundir.Event{}, false
}
