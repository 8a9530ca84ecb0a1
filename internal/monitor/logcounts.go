package monitor

// LogTotals are what a log endpoint left out over the run (its series
// lines_refused_total, lines_late_total, values_refused_total and
// reads_capped_total at the end), for the monitor-stopped event.
type LogTotals struct {
	Refused   map[string]int // lines refused, by reason (RefusedLong, ...)
	Late      int            // lines counted after their interval's point
	BadValues int            // captured values that were not finite numbers in range
	Capped    int            // intervals whose reading stopped at MaxLogRead
}

// noteLog keeps endpoint name's totals once it has stopped.
func (s *Scraper) noteLog(name string, st *logState) {
	refused, late, bad := st.totals()
	st.mu.Lock()
	capped := int(st.capped)
	st.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logTotals == nil {
		s.logTotals = map[string]LogTotals{}
	}
	s.logTotals[name] = LogTotals{Refused: refused, Late: late, BadValues: bad, Capped: capped}
}

// LogTotals returns each stopped log endpoint's totals.
func (s *Scraper) LogTotals() map[string]LogTotals {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]LogTotals, len(s.logTotals))
	for k, v := range s.logTotals {
		out[k] = v
	}
	return out
}
