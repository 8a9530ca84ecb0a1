package rundir

import "strconv"

// readClockColumn reads one of testers.csv's clock trust columns, by
// name; a file written before them reads as unauthenticated syncs (none
// were authenticated then), nothing refused, nothing suspect.
func readClockColumn(t *TesterRecord, column, v string, p *parser) {
	switch column {
	case "clock_auth":
		t.ClockAuth = v == "true"
	case "clock_refused":
		t.ClockRefused = parseCount(v, p)
	case "clock_suspect":
		t.ClockSuspect = v
	case "clock_syncs_refused":
		t.ClockSyncsRefused = parseCount(v, p)
	}
}

// parseCount parses an unsigned count, the whole uint64 range; p keeps
// the first error.
func parseCount(v string, p *parser) uint64 {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil && p.err == nil {
		p.err = err
	}
	return n
}
