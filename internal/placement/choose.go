package placement

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/human"
)

// Choose picks r.Testers hosts out of cands. A candidate that misses a
// rule is left out with every rule it misses; the rest are ranked by
// r.Prefer (ties by host name) and taken in rank order, with spread:
// site in rounds of one host per site. Fewer than r.Testers may be
// chosen (Result.Short): what to do then is the caller's.
func Choose(cands []Candidate, r Rules) Result {
	var ok []Candidate
	out := map[string]*Decision{}
	for _, c := range cands {
		d := &Decision{Candidate: c}
		out[c.Host] = d
		if why := r.refuse(c); why != "" {
			d.Reason = why
			continue
		}
		ok = append(ok, c)
	}
	chosen := r.pick(r.rank(ok), out)
	res := Result{Chosen: chosen}
	for _, h := range chosen {
		res.Decisions = append(res.Decisions, *out[h])
	}
	var rest []Decision
	for _, d := range out {
		if !d.Chosen {
			rest = append(rest, *d)
		}
	}
	slices.SortFunc(rest, func(a, b Decision) int { return strings.Compare(a.Host, b.Host) })
	res.Decisions = append(res.Decisions, rest...)
	for i := range res.Decisions {
		res.Decisions[i].Reason = cut(res.Decisions[i].Reason)
	}
	return res
}

// MaxReason bounds a reason in bytes (rundir.MaxReason): a longer one
// (a directory's error at length) is cut, on a character's boundary.
const MaxReason = 4096

// cut shortens s to at most MaxReason bytes, ending it with "…".
func cut(s string) string {
	if len(s) <= MaxReason {
		return s
	}
	s = s[:MaxReason-len("…")]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// refuse returns every rule c misses, "" when it meets them all.
func (r Rules) refuse(c Candidate) string {
	var why []string
	switch {
	case r.Network && c.Link == nil:
		why = append(why, "no figures: "+c.NoLink)
	case r.Network && !c.Link.Usable:
		why = append(why, "no usable figures: "+c.Link.Basis+", whose error is not known")
	default:
		why = append(why, r.refuseLink(c)...)
	}
	switch {
	case r.MinIdleCPU <= 0:
	case !c.cpuKnown():
		why = append(why, "idle CPU not known: "+c.NoCPU)
	case c.IdleCPU < r.MinIdleCPU:
		why = append(why, fmt.Sprintf("idle CPU %s%% < min %s%%", human.Number(c.IdleCPU, 3), human.Number(r.MinIdleCPU, 3)))
	}
	return strings.Join(why, "; ")
}

// refuseLink returns the network rules c's figures miss.
func (r Rules) refuseLink(c Candidate) []string {
	var why []string
	bw, lat := c.bandwidth(), c.latency()
	switch {
	case r.MinBps <= 0:
	case bw <= 0:
		why = append(why, "no bandwidth figure (min_bandwidth needs one)")
	case bw < r.MinBps:
		why = append(why, fmt.Sprintf("bandwidth %s < min %s", human.Bits(bw), human.Bits(r.MinBps)))
	}
	switch {
	case r.MaxLatencyMs <= 0:
	case lat <= 0:
		why = append(why, "no latency figure (max_latency needs one)")
	case lat > r.MaxLatencyMs:
		why = append(why, fmt.Sprintf("latency %s > max %s", human.Millis(lat), human.Millis(r.MaxLatencyMs)))
	}
	return why
}

// pick takes up to r.Testers hosts of ranked in order (in rounds of one
// per site with spread: site) and gives each candidate of ranked its
// reason in out.
func (r Rules) pick(ranked []Candidate, out map[string]*Decision) []string {
	rounds := 1
	if r.Spread == experiment.SpreadSite {
		rounds = len(ranked)
	}
	var chosen []string
	covered := map[string]string{} // site -> its first host chosen
	perSite := map[string]int{}
	for round := 1; round <= rounds && len(chosen) < r.Testers; round++ {
		for _, c := range ranked {
			d, site := out[c.Host], c.siteKey()
			if d.Chosen || len(chosen) == r.Testers || (rounds > 1 && perSite[site] >= round) {
				continue
			}
			d.Chosen, d.Order = true, len(chosen)+1
			d.Reason = "chosen " + ordinal(d.Order) + ": " + figures(c)
			if rounds > 1 && round > 1 {
				d.Reason = fmt.Sprintf("chosen %s: site %s already covered by %s, chosen in round %d: %s",
					ordinal(d.Order), site, covered[site], round, figures(c))
			}
			if covered[site] == "" {
				covered[site] = c.Host
			}
			perSite[site]++
			chosen = append(chosen, c.Host)
		}
	}
	for _, c := range ranked {
		d := out[c.Host]
		switch by := covered[c.siteKey()]; {
		case d.Chosen:
		case rounds > 1 && by != "":
			d.Reason = fmt.Sprintf("not needed: %d chosen; site %s already covered by %s; %s", len(chosen), c.siteKey(), by, figures(c))
		default:
			d.Reason = fmt.Sprintf("not needed: %d chosen; %s", len(chosen), figures(c))
		}
	}
	return chosen
}

// figures says c's figures in one phrase.
func figures(c Candidate) string {
	var f []string
	if c.Link != nil {
		if bw := c.bandwidth(); bw > 0 {
			f = append(f, "bandwidth "+human.Bits(bw))
		}
		if lat := c.latency(); lat > 0 {
			f = append(f, "latency "+human.Millis(lat))
		}
		if c.Link.Basis != "" {
			f = append(f, c.Link.Basis)
		}
	}
	if c.cpuKnown() {
		f = append(f, "idle CPU "+human.Number(c.IdleCPU, 3)+"%")
	}
	if c.Site != "" {
		f = append(f, "site "+c.Site)
	}
	if len(f) == 0 {
		return "no figures"
	}
	return strings.Join(f, ", ")
}

// ordinal is 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(n) + suffix
}
