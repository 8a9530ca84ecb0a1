package report

import (
	"strconv"

	"github.com/diperf/diperf/internal/analyze"
)

// searchLoadCaption is the caption of graph (s1).
func searchLoadCaption(r *analyze.Result, v *searchView) string {
	s := "Figure s1. The capacity search (search.json): the load offered in each of its " +
		strconv.Itoa(len(v.res.Steps)) + " steps (" + loadUnit(r) + ", blue), against "
	if v.timed {
		s += "the time since the first tester started. "
	} else {
		s += "the seconds of the search (search.json does not give every step's seconds of the run). "
	}
	return s + "Each step is shaded by its parts: grey, resting with no load after a failed step (the " +
		"service's backlog drains); orange, the warm-up, left out of the decision; then the measured seconds, " +
		"green when the step met every SLO, red when one failed, purple when the testers were the limit. " +
		"Dots: the throughput after the warm-up (successful calls/s); below the load, the service did not keep up."
}

// searchSLOCaption is the caption of a graph (s2).
func searchSLOCaption(slo string) string {
	return "Figure s2. The SLO " + short(slo) + ": its statistic over each step's measured seconds (" +
		sloUnit(slo) + "), with its 95% interval (grey bar), against the objective (dashed). A green dot: the " +
		"step met it; a red cross: it failed (a sequential test on the calls over the objective, or t bounds on " +
		"the mean: see docs/search.md). A ring marks a weak decision, taken by the point estimate when the step " +
		"reached its time limit undecided."
}

// searchBracketCaption is the caption of graph (s3).
func searchBracketCaption(r *analyze.Result, v *searchView) string {
	s := "Figure s3. The bracket after each step: lo (green), the highest load that met every SLO, and hi (red), " +
		"the lowest that failed; the search grows the load until a step fails, then probes inside the bracket " +
		"until hi/lo is within the precision asked. Points: each step's load (" + loadUnit(r) + ") by its decision."
	if p := v.res.Precision; p > 0 {
		s += " Precision asked: " + num(100*p) + "%."
	}
	return s
}
