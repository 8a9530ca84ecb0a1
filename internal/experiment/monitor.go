package experiment

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"time"
)

// Monitor formats: how an endpoint's page is read.
const (
	FormatPrometheus = "prometheus"  // the Prometheus text exposition format (the default)
	FormatStubStatus = "stub_status" // nginx's stub_status page
	FormatLog        = "log"         // a log file followed line by line (log:)
	FormatCommand    = "command"     // a command run every interval (command:)
)

// MinMonitorInterval is the shortest scrape interval a monitor endpoint
// may ask for.
const MinMonitorInterval = 100 * time.Millisecond

// MonitorEndpoint is one entry of the monitor key: a page scraped every
// interval while the run goes (docs/monitor.md).
type MonitorEndpoint struct {
	Name   string `yaml:"name"`             // names the endpoint in monitor.csv and the report
	URL    string `yaml:"url"`              // http:// or https:// page to GET
	Format string `yaml:"format,omitempty"` // prometheus (default) or stub_status
	// Interval is how often the page is read (0: the analysis quantum).
	Interval Duration `yaml:"interval,omitempty"`
	// Metrics lists the metric names to keep, as globs (path.Match);
	// none: a default set for node_exporter pages, else every series up
	// to a cap.
	Metrics []string `yaml:"metrics,omitempty"`
	// MaxSeries bounds the series kept from one scrape (0: the default,
	// 500); the rest are dropped and counted.
	MaxSeries int `yaml:"max_series,omitempty"`
	// Host is where a log or command endpoint's file or command is: ""
	// this machine, else an ssh destination ([user@]host[:port]) reached
	// with the ssh testbed's user, identity_file and known_hosts.
	Host string `yaml:"host,omitempty"`
	// Log is a log endpoint's file and what to read from its lines
	// (format log).
	Log *LogSource `yaml:"log,omitempty"`
	// Command is a command endpoint's command and what to read from its
	// output (format command).
	Command *CommandSource `yaml:"command,omitempty"`
}

// LogSource is a log file followed while the run goes: the lines that
// match Match are counted (lines_total, a point per interval), and each
// Field captured from them summed or taken percentiles of.
type LogSource struct {
	Path   string     `yaml:"path"`             // the file, on the endpoint's host
	Match  string     `yaml:"match,omitempty"`  // RE2 a counted line matches ("": every line)
	Time   *LogTime   `yaml:"time,omitempty"`   // the line's own time stamp (none: its arrival time)
	Fields []LogField `yaml:"fields,omitempty"` // numbers captured from the matching lines
}

// LogTime says where a line's own time stamp is: the capture group of
// Match that holds it and its layout.
type LogTime struct {
	Group  int    `yaml:"group"`  // capture group of match (1 = the first)
	Layout string `yaml:"layout"` // unix (seconds with a fraction: nginx $msec), xferlog (vsftpd: Mon Jan  2 15:04:05 2006), or a Go time layout
}

// LogField is a number captured from every matching line.
type LogField struct {
	Name  string `yaml:"name"`           // names its series: <name>_sum, or <name>{quantile=...}
	Group int    `yaml:"group"`          // capture group of match (1 = the first)
	Stat  string `yaml:"stat,omitempty"` // sum (default) or percentiles
}

// CommandSource is a command run every interval on the endpoint's host;
// one number per named counter is read from its output, or the whole
// output as Prometheus text.
type CommandSource struct {
	Argv []string `yaml:"argv"` // the command and its arguments, run without a shell
	// Counters maps a series name to an RE2 with one capture group: the
	// number the group captures in the output's first matching line.
	Counters map[string]string `yaml:"counters,omitempty"`
	// Prometheus reads the output as the Prometheus text format instead
	// (metrics and max_series choose the series, as for a page).
	Prometheus bool `yaml:"prometheus,omitempty"`
}

// MaxMonitorSeries is the most series an endpoint's max_series may keep
// from one scrape: the scraper holds up to twice as many while it reads a
// page, and monitor.csv gets a row for each at every scrape.
const MaxMonitorSeries = 100_000

// FormatOrDefault is the endpoint's format, prometheus when not given.
func (m MonitorEndpoint) FormatOrDefault() string {
	if m.Format == "" {
		return FormatPrometheus
	}
	return m.Format
}

// MonitorInterval is how often endpoint m is scraped in experiment e: its
// own interval, else the analysis quantum.
func (e *Experiment) MonitorInterval(m MonitorEndpoint) time.Duration {
	if m.Interval > 0 {
		return m.Interval.D()
	}
	return e.Analysis.Quantum.D()
}

// monitor checks the monitor key: each endpoint named once, with an
// http(s) URL, a known format, a sensible interval and valid globs.
func (v *validator) monitor() {
	seen := map[string]int{}
	for i, m := range v.e.Monitor {
		key := "monitor[" + strconv.Itoa(i) + "]"
		switch {
		case m.Name == "":
			v.item(key, key+".name", "is required: names the endpoint in monitor.csv and the report")
		default:
			if first, dup := seen[m.Name]; dup {
				v.item(key, key+".name", fmt.Sprintf("duplicate endpoint name %q (first in monitor[%d])", m.Name, first))
			}
			seen[m.Name] = i
		}
		switch m.FormatOrDefault() {
		case FormatLog:
			v.monitorLog(key, m)
			v.monitorBounds(key, m)
			continue
		case FormatCommand:
			v.monitorCommand(key, m)
			v.monitorBounds(key, m)
			continue
		}
		u, err := url.Parse(m.URL)
		switch {
		case m.URL == "":
			v.item(key, key+".url", "is required: the page to scrape, http://HOST:PORT/PATH")
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			v.item(key, key+".url", fmt.Sprintf("want http://HOST:PORT/PATH or https://..., got %q", m.URL))
		}
		if f := m.FormatOrDefault(); f != FormatPrometheus && f != FormatStubStatus {
			v.item(key, key+".format", fmt.Sprintf("want %s, %s, %s or %s, got %q", FormatPrometheus, FormatStubStatus, FormatLog, FormatCommand, m.Format))
		}
		v.monitorBounds(key, m)
	}
}

// monitorBounds checks an endpoint's interval, max_series and globs.
func (v *validator) monitorBounds(key string, m MonitorEndpoint) {
	if m.Interval != 0 && m.Interval.D() < MinMonitorInterval {
		v.item(key, key+".interval", fmt.Sprintf("must be at least %v, got %v", MinMonitorInterval, m.Interval))
	}
	if m.MaxSeries < 0 || m.MaxSeries > MaxMonitorSeries {
		v.item(key, key+".max_series", fmt.Sprintf("want 1 to %d series (0 or none: 500), got %d", MaxMonitorSeries, m.MaxSeries))
	}
	for j, g := range m.Metrics {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			v.item(key, fmt.Sprintf("%s.metrics[%d]", key, j), fmt.Sprintf("not a valid glob: %q", g))
		}
	}
}

// item reports a problem with key of list item at itemKey: on the key's
// own line when it was set, else on the item's line.
func (v *validator) item(itemKey, key, msg string) {
	line, ok := v.e.lines[key]
	if !ok {
		line = v.e.lines[itemKey]
	}
	v.problems = append(v.problems, Problem{File: v.e.file, Line: line, Key: key, Msg: msg})
}
