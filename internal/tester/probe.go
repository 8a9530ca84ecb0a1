package tester

import (
	"net"
	"net/url"
	"strings"
	"time"
)

// Target probe settings: a few TCP handshakes, the fastest kept.
const (
	probeConnects = 5
	probeTimeout  = time.Second
)

// targetAddr returns the host:port to probe for target: a URL's host (port
// 80 or 443 by scheme when absent) or a plain host:port; "" when target
// names no TCP endpoint.
func targetAddr(target string) string {
	if strings.Contains(target, "://") {
		u, err := url.Parse(target)
		if err != nil || u.Hostname() == "" {
			return ""
		}
		port := u.Port()
		switch {
		case port != "":
		case u.Scheme == "http" || u.Scheme == "ws":
			port = "80"
		case u.Scheme == "https" || u.Scheme == "wss":
			port = "443"
		default:
			return ""
		}
		return net.JoinHostPort(u.Hostname(), port)
	}
	if _, _, err := net.SplitHostPort(target); err == nil {
		return target
	}
	return ""
}

// probeTarget measures the network round trip to target as the fastest of
// a few TCP connects (a handshake takes one round trip); 0 when target
// names no TCP endpoint or none connects.
func probeTarget(target string) time.Duration {
	addr := targetAddr(target)
	if addr == "" {
		return 0
	}
	var best time.Duration
	for range probeConnects {
		t0 := time.Now()
		c, err := net.DialTimeout("tcp", addr, probeTimeout)
		d := time.Since(t0)
		if err != nil {
			continue
		}
		c.Close()
		if best == 0 || d < best {
			best = d
		}
	}
	return best
}
