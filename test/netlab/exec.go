package netlab

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// run runs a command, returning its output in the error when it fails.
func run(ctx context.Context, name string, args ...string) error {
	_, err := output(ctx, name, args...)
	return err
}

// output runs a command and returns its standard output.
func output(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// runAll runs commands one after the other, stopping at the first error.
func runAll(ctx context.Context, cmds [][]string) error {
	for _, c := range cmds {
		if err := run(ctx, c[0], c[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// lookPath finds a program on PATH or in the sbin directories root has.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
		p := filepath.Join(dir, filepath.Base(name))
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

// pickSubnet returns o.Subnet or a random 10.x.y.0/24 that no address of the
// root namespace and no other lab uses.
func pickSubnet(o Options) (netip.Prefix, error) {
	if o.Subnet != "" {
		p, err := netip.ParsePrefix(o.Subnet)
		if err != nil || !p.Addr().Is4() || p.Bits() > 30 {
			return p, fmt.Errorf("subnet %q (Options.Subnet): want an IPv4 network such as 10.77.3.0/24", o.Subnet)
		}
		p = p.Masked()
		if 1<<(32-p.Bits()) < o.Hosts+3 {
			return p, fmt.Errorf("subnet %s (Options.Subnet) is too small for %d hosts", p, o.Hosts)
		}
		return p, nil
	}
	var used []netip.Prefix
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				used = append(used, p.Masked())
			}
		}
	}
	others, _ := filepath.Glob(filepath.Join(stateRoot, "*", "subnet"))
	for _, f := range others {
		if b, err := os.ReadFile(f); err == nil {
			if p, err := netip.ParsePrefix(strings.TrimSpace(string(b))); err == nil {
				used = append(used, p)
			}
		}
	}
	for range 100 {
		var r [2]byte
		_, _ = rand.Read(r[:])
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 100 + r[0]%150, r[1], 0}), 24)
		free := true
		for _, u := range used {
			if u.Overlaps(p) {
				free = false
			}
		}
		if free {
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("no free 10.x.y.0/24 network: set Options.Subnet")
}
