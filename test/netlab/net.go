package netlab

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// hostQueue is the NFQUEUE number in every host's own namespace.
const hostQueue = 7

// Partition cuts (on) or heals (off) everything between the host and the
// rest: iptables DROP on its interface, both ways, inside its namespace.
// Established connections stall as on a real partition; Run still works.
func (h *Host) Partition(on bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if on == h.partitioned {
		return nil
	}
	op := "-I"
	if !on {
		op = "-D"
	}
	in := []string{"iptables", "-w", op, "INPUT", "-i", "eth0", "-j", "DROP"}
	out := []string{"iptables", "-w", op, "OUTPUT", "-o", "eth0", "-j", "DROP"}
	if on { // first in their chains, before any delay queue
		in = []string{"iptables", "-w", op, "INPUT", "1", "-i", "eth0", "-j", "DROP"}
		out = []string{"iptables", "-w", op, "OUTPUT", "1", "-o", "eth0", "-j", "DROP"}
	}
	for _, argv := range [][]string{in, out} {
		if err := h.inNS(argv...); err != nil {
			return fmt.Errorf("netlab: partition of %s: %w", h.Name, err)
		}
	}
	h.partitioned = on
	return nil
}

// SetDelay gives the host's link a one-way delay in each direction (0
// removes it): a round trip between the controller's side and the host
// takes 2×oneWay more, one between two hosts the sum of both hosts' 2×.
func (h *Host) SetDelay(oneWay time.Duration) error {
	if oneWay < 0 {
		return fmt.Errorf("netlab: negative delay %v", oneWay)
	}
	d, err := h.lab.delayer()
	if err != nil {
		return err
	}
	d.set(h.addr, oneWay)
	return nil
}

// delayer starts the lab's delay queues on first use: one in every host's
// namespace and one in the root namespace for packets from the hosts.
func (l *Lab) delayer() (*delayer, error) {
	l.delayMu.Lock()
	defer l.delayMu.Unlock()
	if l.delay != nil {
		return l.delay, nil
	}
	d := newDelayer()
	fail := func(err error) (*delayer, error) {
		d.close()
		return nil, fmt.Errorf("netlab: starting delays: %w", err)
	}
	for _, h := range l.Hosts {
		if err := d.attach(h.NS(), hostQueue, h.addr); err != nil {
			return fail(err)
		}
		if err := h.inNS("iptables", "-w", "-A", "INPUT", "-i", "eth0", "-j", "NFQUEUE",
			"--queue-num", fmt.Sprint(hostQueue), "--queue-bypass"); err != nil {
			return fail(err)
		}
	}
	// The root namespace is shared with other labs: find a free queue number.
	var num uint16
	var err error
	for range 20 {
		num = uint16(1000 + rand.IntN(60000))
		if err = d.attach("", num, netip.Addr{}); err == nil {
			break
		}
	}
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	chain := chainName(l.Name)
	if err := runAll(ctx, [][]string{
		{"iptables", "-w", "-N", chain},
		{"iptables", "-w", "-A", chain, "-i", l.Bridge, "-s", l.Subnet.String(), "-j", "NFQUEUE",
			"--queue-num", fmt.Sprint(num), "--queue-bypass"},
		{"iptables", "-w", "-I", "INPUT", "-j", chain},
	}); err != nil {
		return fail(err)
	}
	l.delay = d
	return d, nil
}

// chainName is the root namespace's iptables chain of lab name.
func chainName(lab string) string { return "NETLAB-" + lab }

// SetRate caps the host's link at bitsPerSec in each direction (tc tbf on
// both ends of its veth); 0 removes the cap.
func (h *Host) SetRate(bitsPerSec int64) error {
	if bitsPerSec < 0 {
		return fmt.Errorf("netlab: negative rate %d", bitsPerSec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	host := []string{"nsenter", "--net=" + h.NS(), "--", "tc", "qdisc"}
	for _, ln := range []struct {
		pre []string
		dev string
	}{{host, "eth0"}, {[]string{"tc", "qdisc"}, h.veth}} {
		argv := append(slices.Clone(ln.pre), "del", "dev", ln.dev, "root")
		if bitsPerSec > 0 {
			burst := max(bitsPerSec/8/100, 16<<10) // 10 ms worth, at least a few packets
			argv = append(slices.Clone(ln.pre), "replace", "dev", ln.dev, "root", "tbf",
				"rate", fmt.Sprintf("%dbit", bitsPerSec), "burst", fmt.Sprint(burst), "latency", "100ms")
		}
		err := run(ctx, argv[0], argv[1:]...)
		if err != nil && (bitsPerSec > 0 || !strings.Contains(err.Error(), "handle of zero")) {
			return fmt.Errorf("netlab: rate of %s: %w", h.Name, err)
		}
	}
	return nil
}
