package analyze

import (
	"cmp"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/diperf/diperf/internal/stats"
)

// Levels of a HostFigures row (hosts.csv's level column).
const (
	LevelHost = "host" // one tester host
	LevelSite = "site" // every tester host of one site
)

// HostFigures is what the testers of one host, or of every host of one
// site, got from the service (hosts.csv; thesis per-machine graphs).
// Response times are those of their successful calls over their
// lifetimes, from their testers' histograms merged.
type HostFigures struct {
	Level   string // LevelHost or LevelSite
	Name    string // the host's name, or the site's
	Site    string // the host's site ("": unknown); a site's own name
	Hosts   int    // 1 for a host; a site's hosts
	Testers int    // testers that ran on it
	OK      int    // successful calls of its testers over their lifetimes
	Failed  int    // failed calls of its testers over their lifetimes
	// PeakTesters are its testers that ran over the whole peak window,
	// PeakOK the successful calls they completed in it and PeakPerS those
	// over the window's length, calls/s (0: no tester or no window).
	PeakTesters int
	PeakOK      int
	PeakPerS    float64
	// RunS is how long its testers ran (the first start to the last
	// end), RunPerS its successful calls over it, calls/s.
	RunS    float64
	RunPerS float64
	RT      RTStats
	// Jain is Jain's index over its PeakTesters' successful calls in the
	// peak window (1 for one tester, 0 for none); JainHosts, of a site
	// only, that over its hosts' peak calls per tester (PeakOK /
	// PeakTesters, hosts with a tester in the peak window).
	Jain      float64
	JainHosts float64
	// Net is the host's link to and from the target as the sensor mesh
	// gave it (SetNetwork; nil: none, and always nil for a site).
	Net *NetLink
}

// PerTester is its calls per tester in the peak window (PeakOK /
// PeakTesters), the figure Jain's index across hosts is over; 0 with no
// tester in the window.
func (h *HostFigures) PerTester() float64 {
	if h.PeakTesters == 0 {
		return 0
	}
	return float64(h.PeakOK) / float64(h.PeakTesters)
}

// HostsSummary is summary.json's hosts block: how many tester hosts and
// sites the run had, and Jain's index across the hosts' peak calls per
// tester.
type HostsSummary struct {
	Hosts               int     `json:"hosts"`
	Sites               int     `json:"sites,omitempty"`
	FairnessAcrossHosts float64 `json:"fairness_across_hosts"`
}

// hostFigures groups the testers by host and by site and sums each
// group (hosts.csv), with the summary's hosts block (nil: no testers).
func (a *Accumulator) hostFigures(g grid) (hosts, sites []HostFigures, sum *HostsSummary) {
	byHost := groupBy(a.testers, func(t Tester) string { return t.Host })
	hosts = make([]HostFigures, 0, len(byHost))
	for _, k := range sortedKeys(byHost) {
		h := a.groupFigures(g, byHost[k])
		h.Level, h.Name, h.Hosts = LevelHost, k, 1
		h.Site = siteOf(a.testers, byHost[k])
		hosts = append(hosts, h)
	}
	bySite := groupBy(a.testers, func(t Tester) string { return t.Site })
	delete(bySite, "")
	across := perTesterBySite(hosts)
	for _, k := range sortedKeys(bySite) {
		s := a.groupFigures(g, bySite[k])
		s.Level, s.Name, s.Site = LevelSite, k, k
		s.Hosts, s.JainHosts = across[k].hosts, jainOf(across[k].per)
		sites = append(sites, s)
	}
	if len(hosts) == 0 {
		return nil, nil, nil
	}
	var per []float64
	for i := range hosts {
		if hosts[i].PeakTesters > 0 {
			per = append(per, hosts[i].PerTester())
		}
	}
	return hosts, sites, &HostsSummary{Hosts: len(hosts), Sites: len(sites), FairnessAcrossHosts: jainOf(per)}
}

// groupFigures sums the testers at positions idx of a.testers.
func (a *Accumulator) groupFigures(g grid, idx []int) HostFigures {
	var h HostFigures
	var m stats.Moments
	var hist *hdr.Histogram
	var peak []int
	first, last := a.testers[idx[0]].Start, a.testers[idx[0]].End
	for _, i := range idx {
		t := a.testers[i]
		first, last = min(first, t.Start), max(last, t.End)
		h.Testers++
		h.OK, h.Failed = h.OK+a.whole.ok[i], h.Failed+a.whole.failed[i]
		m.Merge(a.whole.mom[i])
		hist = mergeHist(hist, a.whole.hists[i], len(idx) == 1)
		if a.inPeak.use[i] {
			peak = append(peak, a.inPeak.ok[i])
			h.PeakOK += a.inPeak.ok[i]
		}
	}
	h.PeakTesters, h.Jain, h.RT = len(peak), jain(peak), rtStats(m, hist)
	if d := a.peak.end - a.peak.start; d > 0 && len(peak) > 0 {
		h.PeakPerS = float64(h.PeakOK) / (float64(d) / 1e9)
	}
	if h.RunS = g.seconds(last) - g.seconds(first); h.RunS > 0 {
		h.RunPerS = float64(h.OK) / h.RunS
	}
	return h
}

// mergeHist adds b to into and returns it; a group of one tester uses
// its tester's histogram as it is (only), so that a run of many hosts of
// one tester each allocates none.
func mergeHist(into, b *hdr.Histogram, only bool) *hdr.Histogram {
	switch {
	case b == nil:
		return into
	case only:
		return b
	case into == nil:
		into = newHist()
	}
	into.Merge(b)
	return into
}

// siteHosts is what Jain's index across a site's hosts is over: how many
// hosts it has, and the calls per tester in the peak window of those that
// had a tester there.
type siteHosts struct {
	hosts int
	per   []float64
}

// perTesterBySite gathers, in one pass, each site's siteHosts.
func perTesterBySite(hosts []HostFigures) map[string]*siteHosts {
	out := map[string]*siteHosts{}
	for i := range hosts {
		h := &hosts[i]
		if h.Site == "" {
			continue
		}
		s := out[h.Site]
		if s == nil {
			s = &siteHosts{}
			out[h.Site] = s
		}
		s.hosts++
		if h.PeakTesters > 0 {
			s.per = append(s.per, h.PerTester())
		}
	}
	return out
}

// siteOf is the site of the testers at idx: the first one known.
func siteOf(testers []Tester, idx []int) string {
	for _, i := range idx {
		if testers[i].Site != "" {
			return testers[i].Site
		}
	}
	return ""
}

// groupBy returns the positions of testers by key.
func groupBy(testers []Tester, key func(Tester) string) map[string][]int {
	out := map[string][]int{}
	for i, t := range testers {
		k := key(t)
		out[k] = append(out[k], i)
	}
	return out
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string][]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	return keys
}
