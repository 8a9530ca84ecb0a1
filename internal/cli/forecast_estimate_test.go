package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netmap"
)

// `diperf forecast` answers a pair no sensor tests along the hierarchy,
// with the error composed from its hops' forecasts; a pair forecast only
// the other way is labelled reverse (error unknown), not usable, exit 2.
func TestForecastEstimatedAndReversePairs(t *testing.T) {
	lab := newMeshLab(t)
	ctx := context.Background()
	for name, site := range map[string]string{"a1": "A", "ga": "A", "b1": "B", "gb": "B"} {
		groups := []string{"local", netmap.SitePrefix + site}
		if name[0] == 'g' {
			groups = append(groups, "global")
		}
		if _, err := lab.c.Register(ctx, directory.Registration{Name: name, Address: "127.0.0.1:1", Version: "1",
			Groups: groups, Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Now().Add(-time.Minute)
	for _, f := range []directory.Forecast{
		{Src: "a1", Dst: "ga", Kind: "bandwidth", Value: 900e6, Error: 50e6},
		{Src: "ga", Dst: "gb", Kind: "bandwidth", Value: 100e6, Error: 30e6},
		{Src: "gb", Dst: "b1", Kind: "bandwidth", Value: 90e6, Error: 5e6},
		{Src: "a1", Dst: "ga", Kind: "latency", Value: 0.5, Error: 0.1},
		{Src: "ga", Dst: "gb", Kind: "latency", Value: 20, Error: 2},
		{Src: "gb", Dst: "b1", Kind: "latency", Value: 1, Error: 0.2},
	} {
		f.Method, f.MadeAt = "mean", at
		if _, err := lab.c.AddForecast(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"forecast"}, append(args, "--directory", lab.url, "--token-file", lab.tokenFile)...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("a1", "b1")
	if code != 0 || !strings.Contains(out, "bandwidth a1 → b1: 90 Mbit/s ± 20 Mbit/s (estimated via ga, gb)") ||
		!strings.Contains(out, "latency   a1 → b1: 21.5 ms ± 2.3 ms (estimated via ga, gb)") {
		t.Errorf("forecast a1 b1: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run("a1", "b1", "--json")
	var a forecastAnswer
	if err := json.Unmarshal([]byte(out), &a); code != 0 || err != nil || a.BandwidthBps == nil || a.BandwidthBps.Basis != "hierarchy" ||
		!a.BandwidthBps.ErrorKnown || !a.BandwidthBps.Usable || a.BandwidthBps.Error != 20e6 || strings.Join(a.BandwidthBps.Via, ",") != "ga,gb" {
		t.Errorf("forecast a1 b1 --json: exit %d, %v\n%s", code, err, out)
	}
	code, out, errs = run("ga", "a1")
	if code != 2 || !strings.Contains(out, "reverse (error unknown)") || !strings.Contains(errs, "no usable forecast for ga → a1") ||
		!strings.Contains(errs, "diperf probe ga a1") {
		t.Errorf("forecast ga a1 (only a1 → ga forecast): exit %d\n%s%s", code, out, errs)
	}
	_, out, _ = run("ga", "a1", "--json")
	a = forecastAnswer{}
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.BandwidthBps == nil || a.BandwidthBps.Usable || a.BandwidthBps.ErrorKnown ||
		a.BandwidthBps.Basis != "reverse" {
		t.Errorf("forecast ga a1 --json: %v\n%s", err, out)
	}
}
