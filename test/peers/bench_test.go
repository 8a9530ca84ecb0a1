package peers

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkPeers measures the peer load generators against a private nginx:
//
//	go test -run '^$' -bench BenchmarkPeers -benchtime 1x ./test/peers/
//
// wrk, k6, oha and hey, 50 connections, 5 s each, 3 rounds; it prints the
// table of medians. Environment: DIPERF_PEERS_INSTALL=1 installs missing
// tools (apt-get, go install, cargo install; minutes for k6 and oha);
// DIPERF_PEERS_TOOLS=wrk,k6,oha,hey,locust chooses the tools;
// DIPERF_PEERS_CONNECTIONS, DIPERF_PEERS_DURATION (a Go duration),
// DIPERF_PEERS_ROUNDS and DIPERF_PEERS_NGINX_WORKERS change the load.
func BenchmarkPeers(b *testing.B) {
	o := Options{
		Tools:   envTools(b),
		Load:    Load{Connections: envInt(b, "DIPERF_PEERS_CONNECTIONS", 50), Duration: 5 * time.Second},
		Rounds:  envInt(b, "DIPERF_PEERS_ROUNDS", 3),
		Pause:   500 * time.Millisecond,
		Install: os.Getenv("DIPERF_PEERS_INSTALL") == "1",
		Nginx:   NginxOptions{Workers: envInt(b, "DIPERF_PEERS_NGINX_WORKERS", 1)},
	}
	if d := os.Getenv("DIPERF_PEERS_DURATION"); d != "" {
		var err error
		if o.Load.Duration, err = time.ParseDuration(d); err != nil {
			b.Fatalf("DIPERF_PEERS_DURATION: %v", err)
		}
	}
	b.ResetTimer()
	rep, err := Run(context.Background(), o, os.Stdout)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if err := WriteTable(os.Stdout, rep); err != nil {
		b.Fatal(err)
	}
	for _, s := range rep.Summaries {
		b.ReportMetric(s.RequestsPerS, s.Tool+"-req/s")
		b.ReportMetric(s.RequestsPerCPUS, s.Tool+"-req/cpu-s")
	}
}

// envTools is the tools named in DIPERF_PEERS_TOOLS (default: Defaults()).
func envTools(b *testing.B) []Tool {
	names := os.Getenv("DIPERF_PEERS_TOOLS")
	if names == "" {
		return Defaults()
	}
	all := map[string]Tool{}
	for _, t := range append(Defaults(), Locust{}) {
		all[t.Name()] = t
	}
	var out []Tool
	for n := range strings.SplitSeq(names, ",") {
		t, ok := all[strings.TrimSpace(n)]
		if !ok {
			b.Fatalf("DIPERF_PEERS_TOOLS: no tool %q", n)
		}
		out = append(out, t)
	}
	return out
}

func envInt(b *testing.B, key string, def int) int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		b.Fatalf("%s: %v", key, err)
	}
	return n
}
