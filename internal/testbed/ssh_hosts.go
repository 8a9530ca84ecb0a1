package testbed

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/errs"
)

// sshTarget is one candidate host of the ssh testbed: how it was listed
// (its name in Ready.Hosts) and where and as whom to log in.
type sshTarget struct {
	name string // as listed: [user@]host[:port]
	user string
	addr string // host:port
}

// parseTarget reads [user@]host[:port]; an IPv6 host with a port is
// bracketed ([::1]:22). defUser is the login when none is given.
func parseTarget(s, defUser string) (sshTarget, error) {
	t := sshTarget{name: s, user: defUser}
	hostPort := s
	if u, rest, ok := strings.Cut(s, "@"); ok {
		t.user, hostPort = u, rest
	}
	host, port := hostPort, "22"
	if h, p, err := net.SplitHostPort(hostPort); err == nil {
		host, port = h, p
	} else if strings.Count(hostPort, ":") == 1 {
		return t, fmt.Errorf("host %q: want [user@]host[:port]: %w", s, err)
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	n, err := strconv.Atoi(port)
	switch {
	case host == "" || t.user == "" || strings.ContainsAny(host, " \t/@[]") || strings.ContainsAny(t.user, " \t/:@"):
		return t, fmt.Errorf("host %q: want [user@]host[:port]", s)
	case strings.Contains(host, ":") && net.ParseIP(host) == nil:
		return t, fmt.Errorf("host %q: an IPv6 address with a port is written [ADDR]:PORT", s)
	case err != nil || n < 1 || n > 65535:
		return t, fmt.Errorf("host %q: the port must be 1-65535", s)
	}
	t.addr = net.JoinHostPort(host, port)
	return t, nil
}

// sshTargets returns the candidate hosts: testbed.hosts, then the lines of
// testbed.hosts_file (blank lines and # comments skipped), each once.
func sshTargets(hosts []string, hostsFile, defUser string) ([]sshTarget, error) {
	all := append([]string(nil), hosts...)
	if hostsFile != "" {
		more, err := readHostsFile(hostsFile)
		if err != nil {
			return nil, err
		}
		all = append(all, more...)
	}
	if defUser == "" {
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("ssh testbed: who is logging in? give testbed.user: %w", err)
		}
		defUser = u.Username
	}
	var out []sshTarget
	seen := map[string]bool{}
	for _, h := range all {
		if seen[h] {
			continue
		}
		seen[h] = true
		t, err := parseTarget(h, defUser)
		if err != nil {
			return nil, errs.Usage(fmt.Errorf("testbed.hosts: %w", err), "list hosts as host, host:port or user@host:port")
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errs.Usagef("the ssh testbed has no hosts: list them in testbed.hosts or testbed.hosts_file")
	}
	return out, nil
}

// readHostsFile reads one host per line; # starts a comment.
func readHostsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("testbed.hosts_file: %w", err), "give a file with one host per line")
	}
	defer f.Close()
	var hosts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			hosts = append(hosts, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("testbed.hosts_file %s: %w", path, err)
	}
	return hosts, nil
}
