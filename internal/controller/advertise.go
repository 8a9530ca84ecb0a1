package controller

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// advertised is Options.Advertise, parsed: a host and, when given, a port.
type advertised struct{ host, port string }

// parseAdvertise parses HOST or HOST:PORT (an IPv6 host bracketed when a
// port follows). A wildcard host is refused: testers cannot dial it.
func parseAdvertise(s string) (advertised, error) {
	if s == "" {
		return advertised{}, nil
	}
	var a advertised
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return a, fmt.Errorf("advertise address %q: the port must be 1-65535", s)
		}
		a = advertised{host: h, port: p}
	} else {
		a.host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if strings.Contains(a.host, ":") && net.ParseIP(a.host) == nil {
			return a, fmt.Errorf("advertise address %q: want HOST or HOST:PORT", s)
		}
	}
	if a.host == "" {
		return a, fmt.Errorf("advertise address %q has no host", s)
	}
	if ip := net.ParseIP(a.host); ip != nil && ip.IsUnspecified() {
		return a, fmt.Errorf("advertise address %q is a wildcard, which testers cannot dial; give an address of this machine they can reach", s)
	}
	return a, nil
}

// advertise settles what testers are told for a controller listening at
// ln, and why (for events.jsonl, which Run writes once it exists): the advertise address (its
// port defaulting to the listened one), else the listen address itself.
// A wildcard listen (0.0.0.0, ::) with no advertise address is told as
// loopback when every tester runs on this machine, and is an error
// otherwise: only the user knows which of this machine's addresses the
// testers can reach.
func (c *controller) advertise(ln net.Addr) error {
	host, port, why, err := advertiseAddr(ln, c.o.Listen, c.adv, c.ready.Local() || !c.path.Reach.Dials())
	if err != nil {
		return err
	}
	c.adv = advertised{host: host, port: port}
	c.addr = net.JoinHostPort(host, port)
	if port == "" { // a listener whose address is no host:port is told as it is
		c.addr = host
	}
	c.advWhy = why
	if c.path.Reach.Dials() && port != "" { // else testers dial nothing, or the transport has no host:port to check
		if err := c.checkAdvertised(); err != nil {
			return err
		}
	}
	c.joinAddress()
	return nil
}

// checkAdvertised dials the advertised address once, as a tester would:
// a controller that cannot reach itself there is told at start, not after
// every tester timed out. An address that is not this machine's (a NAT, a
// load balancer) may be out of its own reach: that is only noted.
func (c *controller) checkAdvertised() error {
	ctx, cancel := context.WithTimeout(context.Background(), advertiseCheck)
	defer cancel()
	conn, err := c.o.Transport.Dial(ctx, c.addr)
	if err == nil {
		c.selfCheck = conn.LocalAddr().String()
		conn.Close()
		return nil
	}
	if ownAddress(c.adv.host) {
		return fmt.Errorf("controller: testers would be told to dial %s, which this machine cannot reach: %w", c.addr, err)
	}
	c.advWhy += fmt.Sprintf(" (not checked: %v)", err)
	return nil
}

// advertiseCheck bounds the dial of checkAdvertised.
const advertiseCheck = 3 * time.Second

// ownAddress reports whether host is an IP address of this machine.
func ownAddress(host string) bool {
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// advertiseAddr is advertise's choice; listen is the address asked for,
// whose IP family picks the loopback address for a wildcard.
func advertiseAddr(ln net.Addr, listen string, adv advertised, local bool) (host, port, why string, err error) {
	lh, lp, err := net.SplitHostPort(ln.String())
	if err != nil {
		if adv.host != "" {
			return "", "", "", fmt.Errorf("controller: cannot advertise %s for a listener at %s", adv.host, ln)
		}
		return ln.String(), "", "the listen address", nil
	}
	port = lp
	if adv.port != "" {
		port = adv.port
	}
	ip := net.ParseIP(lh)
	switch {
	case adv.host != "":
		return adv.host, port, "the advertise address", nil
	case ip == nil || !ip.IsUnspecified():
		return lh, port, "the listen address", nil
	case local:
		return loopbackFor(listen), port, fmt.Sprintf("loopback, for a wildcard listen (%s) with every tester on this machine", ln), nil
	}
	return "", "", "", fmt.Errorf("controller: listening on the wildcard address %s, and testers run on other hosts: "+
		"give an advertise address (--advertise HOST) they can reach", ln)
}

// loopbackFor returns the loopback address of listen's IP family: Go
// reports any wildcard listener as [::], dual-stack, so only a listen
// address asking for IPv6 gets ::1.
func loopbackFor(listen string) string {
	h, _, _ := net.SplitHostPort(listen)
	if ip := net.ParseIP(h); ip != nil && ip.To4() == nil {
		return "::1"
	}
	return "127.0.0.1"
}
