package search

// VerdictWords says what verdict v means, as docs/search.md does
// ("unknown verdict" for one that is not a Verdict* constant).
func VerdictWords(v string) string {
	switch v {
	case VerdictCapacity:
		return "the capacity is bracketed within the precision asked"
	case VerdictFailsAtLowest:
		return "no load met the objectives: the lowest load tried failed already"
	case VerdictHoldsAtMax:
		return "the highest load allowed met every objective: the capacity is at least that"
	case VerdictTesterLimited:
		return "the testers became the limit before the service did: the capacity is not known beyond the bracket"
	case VerdictBudgetOut:
		return "the time budget ran out: the best bracket so far"
	case VerdictNoData:
		return "a step had no call that could be measured"
	}
	return "unknown verdict"
}
