package controller

import (
	"net"
	"strings"
	"testing"
)

func TestParseAdvertise(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in         string
		host, port string
		errHas     string // "" = valid
	}{
		{"", "", "", ""}, // none: the listen address
		{"ctl.example.org", "ctl.example.org", "", ""}, // a host: the listened port
		{"10.0.0.5:7000", "10.0.0.5", "7000", ""},      // host and port (e.g. behind NAT)
		{"[::1]:7000", "::1", "7000", ""},              // IPv6 with a port, bracketed
		{"::1", "::1", "", ""},                         // IPv6 alone
		{"[fe80::1]", "fe80::1", "", ""},               // IPv6 alone, bracketed
		{"0.0.0.0", "", "", "wildcard"},                // nobody can dial a wildcard
		{"[::]:7000", "", "", "wildcard"},
		{"host:0", "", "", "port must be 1-65535"},
		{"host:http", "", "", "port must be 1-65535"},
		{":7000", "", "", "no host"},
		{"a:b:c", "", "", "want HOST or HOST:PORT"},
	}
	for _, tt := range tests {
		a, err := parseAdvertise(tt.in)
		switch {
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("%q: err = %v, want one holding %q", tt.in, err, tt.errHas)
		case tt.errHas == "" && (err != nil || a.host != tt.host || a.port != tt.port):
			t.Errorf("%q: %+v, %v; want host %q port %q", tt.in, a, err, tt.host, tt.port)
		}
	}
}

// fakeAddr is a listener address as some transport prints it.
type fakeAddr string

func (a fakeAddr) Network() string { return "fake" }
func (a fakeAddr) String() string  { return string(a) }

func TestAdvertiseAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ln     string // the listener's address as it reports it
		listen string // the address asked for
		adv    advertised
		local  bool
		want   string // host:port told, or the error's words
		errs   bool
	}{
		{"the listen address", "127.0.0.1:4000", "127.0.0.1:0", advertised{}, true, "127.0.0.1:4000", false},
		{"a wildcard on a local testbed: loopback", "[::]:4000", "0.0.0.0:0", advertised{}, true, "127.0.0.1:4000", false},
		{"an IPv6 wildcard on a local testbed", "[::]:4000", "[::]:0", advertised{}, true, "[::1]:4000", false},
		{"a wildcard with testers elsewhere", "[::]:4000", ":0", advertised{}, false, "give an advertise address", true},
		{"an advertised host takes the listened port", "[::]:4000", ":0", advertised{host: "ctl"}, false, "ctl:4000", false},
		{"an advertised port wins", "10.0.0.5:4000", "10.0.0.5:4000", advertised{host: "gw", port: "80"}, true, "gw:80", false},
		{"a named listener (memory)", "controller:3", "controller:0", advertised{}, false, "controller:3", false},
		{"an address that is no host:port", "pipe", "pipe", advertised{}, false, "pipe", false},
		{"advertising a listener that is no host:port", "pipe", "pipe", advertised{host: "x"}, false, "cannot advertise", true},
	}
	for _, tt := range tests {
		host, port, why, err := advertiseAddr(fakeAddr(tt.ln), tt.listen, tt.adv, tt.local)
		got := host
		if port != "" {
			got = net.JoinHostPort(host, port)
		}
		switch {
		case tt.errs && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %q, %v; want an error holding %q", tt.name, got, err, tt.want)
		case !tt.errs && (err != nil || got != tt.want || why == ""):
			t.Errorf("%s: %q (%q), %v; want %q", tt.name, got, why, err, tt.want)
		}
	}
}
