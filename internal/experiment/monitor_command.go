package experiment

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// MaxCommandCounters bounds the counters of one command endpoint: every
// line of the output is matched against each counter not yet found.
const MaxCommandCounters = 100

// counterName is what a counter may be named: a Prometheus metric name.
var counterName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// scraperMetrics are the names the scraper gives its own series of an
// endpoint; a counter may not take one.
var scraperMetrics = []string{"up", "scrape_duration_seconds", "scrape_series_dropped"}

// monitorCommand checks a command endpoint: a command to run and what to
// read from its output, counters or Prometheus text but not both, and no
// key of another format.
func (v *validator) monitorCommand(key string, m MonitorEndpoint) {
	c := m.Command
	if c == nil || len(c.Argv) == 0 || c.Argv[0] == "" {
		v.item(key, key+".command.argv", "is required for format command: the command to run and its arguments, e.g. [sdiag]")
	}
	if m.URL != "" {
		v.item(key, key+".url", "is not used by format command (it runs command.argv): remove it")
	}
	if m.Log != nil {
		v.item(key, key+".log", "belongs to format log, not command: remove it")
	}
	v.monitorHost(key, m.Host)
	if c == nil {
		return
	}
	switch {
	case c.Prometheus && len(c.Counters) > 0:
		v.item(key, key+".command.counters", "give counters or prometheus: true, not both")
	case !c.Prometheus && len(c.Counters) == 0:
		v.item(key, key+".command", "needs counters (name: RE2 with one capture group) or prometheus: true: what to read from the output")
	case !c.Prometheus && (len(m.Metrics) > 0 || m.MaxSeries != 0):
		v.item(key, key+".metrics", "and max_series choose among Prometheus text: they need command.prometheus: true (counters name their series)")
	}
	v.commandCounters(key, c.Counters)
}

// commandCounters checks each counter's name and pattern, in name order.
func (v *validator) commandCounters(key string, counters map[string]string) {
	if len(counters) > MaxCommandCounters {
		v.item(key, key+".command.counters", fmt.Sprintf("has %d counters; at most %d", len(counters), MaxCommandCounters))
	}
	names := make([]string, 0, len(counters))
	for n := range counters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		k := key + ".command.counters." + n
		switch re, err := regexp.Compile(counters[n]); {
		case !counterName.MatchString(n):
			v.item(key, k, fmt.Sprintf("a counter's name is its series' name: want [a-zA-Z_:][a-zA-Z0-9_:]*, got %q", n))
		case slices.Contains(scraperMetrics, n):
			v.item(key, k, fmt.Sprintf("%s is a series the scraper writes for every endpoint: name the counter otherwise", n))
		case err != nil:
			v.item(key, k, fmt.Sprintf("not a valid RE2 pattern: %v", err))
		case re.NumSubexp() != 1:
			v.item(key, k, fmt.Sprintf("want exactly one capture group (the number), e.g. %q; %q has %d",
				`Jobs completed:\s*(\d+)`, counters[n], re.NumSubexp()))
		}
	}
}

// monitorHost checks a log or command endpoint's host: "" (this machine)
// or an ssh destination [user@]host[:port], which may not start with "-"
// (ssh would take it for an option).
func (v *validator) monitorHost(key, host string) {
	if host == "" {
		return
	}
	if msg := sshDestination(host); msg != "" {
		v.item(key, key+".host", fmt.Sprintf("want [user@]host[:port] (an ssh destination; none: this machine), got %q: %s", host, msg))
	}
}

// sshDestination says what is wrong with [user@]host[:port] h ("": none).
func sshDestination(h string) string {
	if strings.HasPrefix(h, "-") {
		return "it starts with -"
	}
	if strings.ContainsFunc(h, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '/' }) {
		return "it has a space, a control character or a /"
	}
	user, rest, hasUser := strings.Cut(h, "@")
	if hasUser && (user == "" || strings.Contains(rest, "@")) {
		return "the user before @ is empty, or @ is given twice"
	}
	if !hasUser {
		rest = user
	}
	name, port := rest, ""
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") && strings.Count(rest, ":") == 1 {
		name, port = rest[:i], rest[i+1:]
	} else if strings.HasPrefix(rest, "[") {
		if i := strings.LastIndex(rest, "]:"); i >= 0 {
			name, port = rest[:i+1], rest[i+2:]
		}
	}
	if name == "" || name == "[]" {
		return "no host name"
	}
	if p, err := strconv.Atoi(port); port != "" && (err != nil || p < 1 || p > 65535) {
		return "the port is not 1 to 65535"
	}
	return ""
}
