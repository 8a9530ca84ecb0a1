package tester

import (
	"net"
	"testing"
	"time"
)

func TestTargetAddr(t *testing.T) {
	t.Parallel()
	tests := []struct{ target, want string }{
		{"http://127.0.0.1:8080/path", "127.0.0.1:8080"}, // URL with a port
		{"http://example.org/", "example.org:80"},        // the scheme's port
		{"https://example.org", "example.org:443"},
		{"http://[::1]:9/", "[::1]:9"},       // IPv6
		{"127.0.0.1:5000", "127.0.0.1:5000"}, // plain host:port
		{"ldap://host/", ""},                 // a scheme without a known port
		{"", ""},                             // no target
		{"just-a-name", ""},                  // not an endpoint
		{"http://:80/", ""},                  // no host
	}
	for _, tt := range tests {
		if got := targetAddr(tt.target); got != tt.want {
			t.Errorf("targetAddr(%q) = %q, want %q", tt.target, got, tt.want)
		}
	}
}

// TestProbeTarget measures a real listener on loopback, and nothing for a
// port where nobody listens.
func TestProbeTarget(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if d := probeTarget("http://" + ln.Addr().String() + "/"); d <= 0 || d > 100*time.Millisecond {
		t.Errorf("round trip to a loopback listener: %v", d)
	}
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := closed.Addr().String()
	closed.Close()
	if d := probeTarget(addr); d != 0 {
		t.Errorf("round trip to a closed port: %v, want 0", d)
	}
}
