// Package sensor is the measurement loop of a diperf sensor (Gloperf's
// gloperfd, §3): it finds its peers in the directory by group and version,
// builds a randomized list of a bandwidth test and a latency test to each,
// runs one test every period within an overhead budget, writes each result
// to the directory and queries again when the list is done. It also
// estimates, along the group hierarchy, the pairs no sensor measures
// directly. The directory, the tests and the clock are interfaces, so that
// the loop is tested on fake time.
package sensor

import (
	"slices"
	"strings"
)

// Peer is a sensor as the directory lists it.
type Peer struct {
	Name    string   // its registered host name
	Addr    string   // where its test server listens (HOST:PORT)
	Site    string   // its site: "local" groups are per site
	Groups  []string // GroupLocal (every sensor), GroupGlobal (promoted ones), or any other name
	Version string   // diperf version, "MAJOR.MINOR..." or "dev"
	Stale   bool     // it stopped renewing its registration
}

// Compatible reports whether two sensor versions can test each other: the
// same major version (a "dev" build only with another "dev").
func Compatible(a, b string) bool { return major(a) == major(b) }

func major(v string) string {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(v, '.'); i >= 0 {
		return v[:i]
	}
	return v
}

// Eligible returns the peers self tests: not itself, not stale, of a
// compatible version, sharing at least one group, in name order.
func Eligible(self Peer, all []Peer) []Peer {
	var out []Peer
	for _, p := range all {
		if p.Name == self.Name || p.Stale || !Compatible(self.Version, p.Version) || !shareGroup(self, p) {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Peer) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// The groups of Gloperf's hierarchy: every sensor tests the others of its
// site; promoted sensors also test each other across sites.
const (
	GroupLocal  = "local"
	GroupGlobal = "global"
)

// shareGroup: a group in common, "local" only within one site.
func shareGroup(a, b Peer) bool {
	for _, g := range a.Groups {
		if slices.Contains(b.Groups, g) && (g != GroupLocal || a.Site == b.Site) {
			return true
		}
	}
	return false
}

// global reports whether p is promoted to the global group.
func (p Peer) global() bool { return slices.Contains(p.Groups, GroupGlobal) }
