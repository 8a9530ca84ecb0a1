package experiment

import (
	"strings"
	"testing"
)

// selectSSH is an ssh testbed of six hosts with the sensors key, 3
// testers of one per host.
const selectSSH = base + `testbed:
  provider: ssh
  hosts: [a, b, c, d, e, f]
schedule: {testers: 3}
sensors: {directory: "http://127.0.0.1:7000", target: svc}
`

// testbed.select is read with its units, and its defaults follow the
// schedule.
func TestSelectKey(t *testing.T) {
	t.Parallel()
	exp, err := Parse([]byte(selectSSH), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if exp.SelectTesters() != 0 || exp.SelectProbe() {
		t.Errorf("no select key: SelectTesters %d, SelectProbe %v", exp.SelectTesters(), exp.SelectProbe())
	}
	in := strings.Replace(selectSSH, "  hosts: [a, b, c, d, e, f]\n", "  hosts: [a, b, c, d, e, f]\n"+
		"  select: {min_bandwidth: 50Mbit/s, max_latency: 20ms, min_idle_cpu: 50%, spread: site, prefer: far}\n", 1)
	exp, err = Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := exp.Testbed.Select
	if bps, _ := ParseBitRate(s.MinBandwidth); bps != 50e6 || s.MaxLatency.D().Milliseconds() != 20 || s.MinIdleCPU != 50 ||
		s.Spread != SpreadSite || s.Prefer != PreferFar {
		t.Errorf("select = %+v", s)
	}
	if n := exp.SelectTesters(); n != 3 {
		t.Errorf("SelectTesters = %d, want schedule.testers 3 ÷ 1 per host", n)
	}
	if !exp.SelectProbe() {
		t.Error("SelectProbe is false with sensors set and no probe key")
	}
}

// ParseBitRate reads every unit, with or without a space, and plain bit/s.
func TestParseBitRate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]float64{"50Mbit/s": 50e6, "1Gbit/s": 1e9, "1.5 Gbit/s": 1.5e9, "800kbit/s": 8e5,
		"2Tbit/s": 2e12, "1000bit/s": 1000, "250000": 250000, " 7 Mbit/s ": 7e6} {
		if got, err := ParseBitRate(in); err != nil || got != want {
			t.Errorf("ParseBitRate(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fast", "50Mbps", "Mbit/s", "NaN", "inf", "1e400", "50 Xbit/s"} {
		if got, err := ParseBitRate(in); err == nil {
			t.Errorf("ParseBitRate(%q) = %g, want an error", in, got)
		}
	}
}

// Every bad value of testbed.select is refused with its key and line.
func TestSelectProblems(t *testing.T) {
	t.Parallel()
	sel := func(s string) string {
		return strings.Replace(selectSSH, "  hosts: [a, b, c, d, e, f]\n", "  hosts: [a, b, c, d, e, f]\n  select:\n"+s, 1)
	}
	tests := []struct{ in, key, msg string }{
		{sel("    min_bandwidth: fast\n"), "testbed.select.min_bandwidth", "want a bit rate"},
		{sel("    min_bandwidth: 0Mbit/s\n"), "testbed.select.min_bandwidth", "above 0"},
		{sel("    min_bandwidth: 20Tbit/s\n"), "testbed.select.min_bandwidth", "at most 10 Tbit/s"},
		{sel("    max_latency: -1ms\n"), "testbed.select.max_latency", "above 0"},
		{sel("    max_latency: 2m\n"), "testbed.select.max_latency", "at most 1m0s"},
		{sel("    min_idle_cpu: 150%\n"), "testbed.select.min_idle_cpu", "[0%, 100%]"},
		{sel("    spread: rack\n"), "testbed.select.spread", "site or host"},
		{sel("    prefer: random\n"), "testbed.select.prefer", "near, far or diverse"},
		{sel("    testers: -1\n"), "testbed.select.testers", "must be 0"},
		{strings.Replace(sel("    spread: host\n"), "testers: 3", "testers: 7", 1), "testbed.select.testers", "chooses 7 hosts (schedule.testers ÷ testers_per_host, or select.testers) out of the 6"},
		{sel("    testers: 2\n"), "testbed.select.testers", "fewer than schedule.testers 3"},
		{sel("    testers: 4\n"), "testbed.select.testers", "the last host chosen would have no tester"},
		{strings.Replace(sel("    min_bandwidth: 1Mbit/s\n"), "sensors:", "x_sensors:", 1), "testbed.select", "min_bandwidth needs the sensor mesh"},
		{strings.Replace(sel("    spread: site\n"), "provider: ssh", "provider: join\n  listen: 127.0.0.1:0", 1), "testbed.select", "chooses among the hosts"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.in), "e.yaml")
		if err == nil {
			t.Errorf("%s: accepted", tc.msg)
			continue
		}
		found := false
		for _, p := range problems(t, err) {
			if p.Key == tc.key && strings.Contains(p.Msg, tc.msg) && p.Line > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("want %s: %q on its line, got %v", tc.key, tc.msg, err)
		}
	}
}

// The local provider has one host to choose: at most 1, which is the
// default whatever the testers.
func TestSelectLocal(t *testing.T) {
	t.Parallel()
	in := base + "schedule: {testers: 4}\ntestbed:\n  select: {min_idle_cpu: 10}\n"
	exp, err := Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if n := exp.SelectTesters(); n != 1 || exp.SelectProbe() {
		t.Errorf("SelectTesters = %d, SelectProbe %v; want 1 and no probes without sensors", n, exp.SelectProbe())
	}
	if _, err := Parse([]byte(strings.Replace(in, "{min_idle_cpu: 10}", "{testers: 2}", 1)), "e.yaml"); err == nil ||
		!strings.Contains(err.Error(), "at most 1") {
		t.Errorf("select.testers 2 on the local provider: %v", err)
	}
}
