package monitor

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// nginx's stub_status page, turned into series named as nginx's
// Prometheus exporter names them.
const (
	NginxRequests = "nginx_http_requests_total"  // counter: requests served
	NginxAccepted = "nginx_connections_accepted" // counter: connections accepted
	NginxHandled  = "nginx_connections_handled"  // counter: connections handled
	NginxActive   = "nginx_connections_active"   // gauge: open connections
	NginxReading  = "nginx_connections_reading"  // gauge: reading a request
	NginxWriting  = "nginx_connections_writing"  // gauge: writing a response
	NginxWaiting  = "nginx_connections_waiting"  // gauge: idle keep-alive connections
)

// ParseStubStatus reads nginx's stub_status page:
//
//	Active connections: 291
//	server accepts handled requests
//	 16630948 16630948 31070465
//	Reading: 6 Writing: 179 Waiting: 106
func ParseStubStatus(r io.Reader) ([]Series, error) {
	sc := bufio.NewScanner(io.LimitReader(r, 64<<10))
	var lines []string
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read stub_status: %w", err)
	}
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "Active connections:") || !strings.HasPrefix(lines[1], "server accepts handled requests") {
		return nil, fmt.Errorf("not an nginx stub_status page (want \"Active connections: N\", \"server accepts handled requests\", three counts, \"Reading: N Writing: N Waiting: N\")")
	}
	active, err := number(strings.TrimPrefix(lines[0], "Active connections:"))
	if err != nil {
		return nil, fmt.Errorf("stub_status active connections: %w", err)
	}
	counts := strings.Fields(lines[2])
	if len(counts) != 3 {
		return nil, fmt.Errorf("stub_status: want three counts (accepts handled requests), got %q", lines[2])
	}
	var acc [3]float64
	for i, c := range counts {
		if acc[i], err = number(c); err != nil {
			return nil, fmt.Errorf("stub_status counts: %w", err)
		}
	}
	rww := strings.Fields(lines[3])
	if len(rww) != 6 || rww[0] != "Reading:" || rww[2] != "Writing:" || rww[4] != "Waiting:" {
		return nil, fmt.Errorf("stub_status: want \"Reading: N Writing: N Waiting: N\", got %q", lines[3])
	}
	var g [3]float64
	for i := range g {
		if g[i], err = number(rww[2*i+1]); err != nil {
			return nil, fmt.Errorf("stub_status %s %w", rww[2*i], err)
		}
	}
	return []Series{
		{Metric: NginxAccepted, Value: acc[0]}, {Metric: NginxActive, Value: active},
		{Metric: NginxHandled, Value: acc[1]}, {Metric: NginxReading, Value: g[0]},
		{Metric: NginxWaiting, Value: g[2]}, {Metric: NginxWriting, Value: g[1]},
		{Metric: NginxRequests, Value: acc[2]},
	}, nil
}

// number parses a non-negative integer count.
func number(s string) (float64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want a count, got %q", strings.TrimSpace(s))
	}
	return float64(n), nil
}
