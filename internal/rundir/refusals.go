package rundir

// Refusals counts what the controller refused of one tester at ingest
// (docs/design/008-crash-safe-raw-data.md, "What a tester may claim"):
// samples that repeat one already taken, samples and messages whose times
// or counts are impossible for the run. Nothing refused is stored.
type Refusals struct {
	Duplicates uint64 `json:"duplicates,omitempty"` // samples whose seq had come already
	Time       uint64 `json:"time,omitempty"`       // samples outside the tester's window on the run's timeline
	Count      uint64 `json:"count,omitempty"`      // samples whose seq is 0 or past what was produced or could be
	// Messages counts the sync records, Started and Done messages and
	// batch counts refused: their times or counts impossible (what they
	// said is not taken).
	Messages uint64 `json:"messages,omitempty"`
	Reason   string `json:"reason,omitempty"` // the first refusal, in words
}

// Samples is how many samples were refused as impossible (duplicates
// apart).
func (r Refusals) Samples() uint64 { return r.Time + r.Count }

// Add adds the counts of b to r; r keeps its reason, or takes b's.
func (r *Refusals) Add(b Refusals) {
	r.Duplicates += b.Duplicates
	r.Time += b.Time
	r.Count += b.Count
	r.Messages += b.Messages
	if r.Reason == "" {
		r.Reason = b.Reason
	}
}

// Any reports whether anything was refused.
func (r Refusals) Any() bool { return r.Duplicates+r.Samples()+r.Messages > 0 }

// refusalFields are t's refusal columns of testers.csv, the last ones
// (samples_duplicate to refused_reason).
func refusalFields(t *TesterRecord) []string {
	r := t.Refused
	return []string{u64(r.Duplicates), u64(r.Time), u64(r.Count), u64(r.Messages), r.Reason}
}

// readRefusalColumn reads the refusal column named name, if it is one.
func readRefusalColumn(t *TesterRecord, name, v string, p *parser) {
	r := &t.Refused
	switch name {
	case "samples_duplicate":
		r.Duplicates = p.u64(v)
	case "samples_refused_time":
		r.Time = p.u64(v)
	case "samples_refused_count":
		r.Count = p.u64(v)
	case "messages_refused":
		r.Messages = p.u64(v)
	case "refused_reason":
		r.Reason = v
	}
}
