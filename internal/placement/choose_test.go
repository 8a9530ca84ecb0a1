package placement

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// host is a candidate with measured figures: Mbit/s and ms toward the
// target, its idle CPU in percent.
func host(name, site string, mbps, ms, cpu float64) Candidate {
	return Candidate{Host: name, Site: site, IdleCPU: cpu,
		Link: &Link{BandwidthBps: mbps * 1e6, LatencyMs: ms, Basis: "measured", Usable: true, ErrBps: math.NaN()}}
}

// lab is issue 25's known answer: three sites of two hosts, each capped.
func lab() []Candidate {
	return []Candidate{
		host("a1", "A", 80, 10, 90), host("a2", "A", 20, 10, 90),
		host("b1", "B", 60, 20, 90), host("b2", "B", 10, 20, 90),
		host("c1", "C", 40, 30, 90), host("c2", "C", 5, 30, 90),
	}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	noFig := Candidate{Host: "x", Site: "A", IdleCPU: 90, NoLink: "the mesh has no figures of x → svc"}
	busy := host("busy", "B", 100, 1, 12)
	unusable := host("rev", "C", 900, 1, 90)
	unusable.Link.Usable, unusable.Link.Basis = false, "estimated from the reverse direction"
	tests := []struct {
		name   string
		cands  []Candidate
		rules  Rules
		chosen []string
		short  bool
		why    map[string]string // host -> a piece of its reason
	}{
		{"min bandwidth, spread site: one per site first, the caps that allow", lab(),
			Rules{Testers: 3, MinBps: 30e6, Spread: "site", Network: true}, []string{"a1", "b1", "c1"}, false,
			map[string]string{"a1": "chosen 1st: bandwidth 80 Mbit/s", "a2": "bandwidth 20 Mbit/s < min 30 Mbit/s",
				"c2": "bandwidth 5 Mbit/s < min 30 Mbit/s", "c1": "chosen 3rd"}},
		{"spread site: every site before a second host of any", lab(),
			Rules{Testers: 4, Spread: "site", Network: true}, []string{"a1", "b1", "c1", "a2"}, false,
			map[string]string{"a2": "site A already covered by a1, chosen in round 2", "b2": "not needed: 4 chosen"}},
		{"spread host: the best, whatever their site", lab(),
			Rules{Testers: 3, Network: true}, []string{"a1", "b1", "c1"}, false, map[string]string{"a2": "not needed: 3 chosen"}},
		{"spread host doubles a site up", []Candidate{host("a1", "A", 80, 1, 90), host("a2", "A", 70, 1, 90), host("b1", "B", 10, 1, 90)},
			Rules{Testers: 2, Network: true}, []string{"a1", "a2"}, false, nil},
		{"spread site does not", []Candidate{host("a1", "A", 80, 1, 90), host("a2", "A", 70, 1, 90), host("b1", "B", 10, 1, 90)},
			Rules{Testers: 2, Spread: "site", Network: true}, []string{"a1", "b1"}, false,
			map[string]string{"a2": "not needed: 2 chosen; site A already covered by a1; bandwidth 70 Mbit/s"}},
		{"fewer qualify than asked", lab(), Rules{Testers: 3, MinBps: 50e6, Network: true}, []string{"a1", "b1"}, true,
			map[string]string{"c1": "bandwidth 40 Mbit/s < min 50 Mbit/s"}},
		{"max latency", lab(), Rules{Testers: 2, MaxLatencyMs: 25, Network: true}, []string{"a1", "b1"}, false,
			map[string]string{"c1": "latency 30 ms > max 25 ms"}},
		{"no figures, busy CPU, an unusable estimate", []Candidate{noFig, busy, unusable, host("ok", "A", 1, 1, 80)},
			Rules{Testers: 1, MinIdleCPU: 50, Network: true}, []string{"ok"}, false,
			map[string]string{"x": "no figures: the mesh has no figures of x → svc", "busy": "idle CPU 12% < min 50%",
				"rev": "no usable figures: estimated from the reverse direction"}},
		{"idle CPU not known", []Candidate{{Host: "h", IdleCPU: math.NaN(), NoCPU: "ssh: broken pipe"}},
			Rules{Testers: 1, MinIdleCPU: 10}, nil, true, map[string]string{"h": "idle CPU not known: ssh: broken pipe"}},
		{"far: highest latency first", lab(), Rules{Testers: 3, Prefer: "far", Network: true}, []string{"c2", "c1", "b2"}, false, nil},
		{"diverse: over the range of latencies", []Candidate{host("l1", "", 9, 1, 90), host("l2", "", 9, 2, 90),
			host("l3", "", 9, 3, 90), host("l4", "", 9, 4, 90), host("l5", "", 9, 5, 90)},
			Rules{Testers: 3, Prefer: "diverse", Network: true}, []string{"l1", "l3", "l5"}, false, nil},
		{"ties by name", []Candidate{host("z", "", 9, 1, 90), host("m", "", 9, 1, 90), host("b", "", 9, 1, 90)},
			Rules{Testers: 2, Network: true}, []string{"b", "m"}, false, nil},
		{"without the mesh: the most idle CPU", []Candidate{{Host: "p", IdleCPU: 40}, {Host: "q", IdleCPU: 95}, {Host: "r", IdleCPU: math.NaN()}},
			Rules{Testers: 2}, []string{"q", "p"}, false, map[string]string{"q": "chosen 1st: idle CPU 95%"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Choose(tc.cands, tc.rules)
			if !slices.Equal(res.Chosen, tc.chosen) || res.Short(tc.rules) != tc.short {
				t.Errorf("chose %v (short %v), want %v (short %v)", res.Chosen, res.Short(tc.rules), tc.chosen, tc.short)
			}
			if len(res.Decisions) != len(tc.cands) {
				t.Fatalf("%d decisions for %d candidates", len(res.Decisions), len(tc.cands))
			}
			for i, d := range res.Decisions {
				if d.Reason == "" {
					t.Errorf("%s has no reason", d.Host)
				}
				if i < len(res.Chosen) && (d.Host != res.Chosen[i] || !d.Chosen || d.Order != i+1) {
					t.Errorf("decision %d is %+v, want %s chosen %d", i, d, res.Chosen[i], i+1)
				}
				if want, ok := tc.why[d.Host]; ok && !strings.Contains(d.Reason, want) {
					t.Errorf("%s: reason %q, want %q in it", d.Host, d.Reason, want)
				}
			}
		})
	}
}

// The same candidates in any order give the same choice and reasons.
func TestChooseDeterministic(t *testing.T) {
	t.Parallel()
	rules := Rules{Testers: 4, MinBps: 8e6, Spread: "site", Network: true}
	want := Choose(lab(), rules)
	cs := lab()
	for range 20 {
		slices.Reverse(cs)
		cs = append(cs[1:], cs[0])
		got := Choose(cs, rules)
		if !slices.EqualFunc(got.Decisions, want.Decisions, func(a, b Decision) bool { return a.Host == b.Host && a.Reason == b.Reason }) {
			t.Fatalf("order %v: %v, want %v", hostsOf(cs), got.Decisions, want.Decisions)
		}
	}
}

func hostsOf(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Host)
	}
	return out
}

func TestOrdinal(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %s, want %s", n, got, want)
		}
	}
}

// A reason past MaxReason (a directory's long error) is cut to it, on a
// character's boundary.
func TestReasonCut(t *testing.T) {
	t.Parallel()
	c := Candidate{Host: "h", IdleCPU: math.NaN(), NoLink: strings.Repeat("é", MaxReason)}
	d := Choose([]Candidate{c}, Rules{Testers: 1, Network: true}).Decisions[0]
	if len(d.Reason) > MaxReason || !strings.HasSuffix(d.Reason, "…") || !utf8.ValidString(d.Reason) {
		t.Errorf("a reason of %d bytes, valid UTF-8 %v", len(d.Reason), utf8.ValidString(d.Reason))
	}
}
