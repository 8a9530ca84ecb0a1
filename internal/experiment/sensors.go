package experiment

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Sensors links a run to a sensor mesh's directory: which sensor stands
// for the service's host and which for each tester host.
type Sensors struct {
	Directory string `yaml:"directory"`            // the directory's URL, http[s]://HOST:PORT
	TokenFile string `yaml:"token_file,omitempty"` // the mesh's token ("": the default token file)
	// CAFile holds the PEM certificates an https:// directory's must be
	// signed by ("": the system's roots, $SSL_CERT_FILE).
	CAFile string `yaml:"ca_file,omitempty"`
	// Target is the sensor name of the service's host ("" = the host of
	// the built-in client's URL or address).
	Target string `yaml:"target,omitempty"`
	// Names maps a tester host to its sensor's name when they differ
	// (default: the host name).
	Names map[string]string `yaml:"names,omitempty"`
}

// SensorName is the sensor name of tester host host.
func (s *Sensors) SensorName(host string) string {
	if n, ok := s.Names[host]; ok && n != "" {
		return n
	}
	return host
}

// SensorsTarget is the sensor name of the service's host: sensors.target,
// else the host of the built-in client's URL or address ($DIPERF_TARGET
// expanded); "" when neither says.
func (e *Experiment) SensorsTarget() string {
	if e.Sensors == nil {
		return ""
	}
	if e.Sensors.Target != "" {
		return e.Sensors.Target
	}
	expand := func(s string) string { return strings.ReplaceAll(s, "$DIPERF_TARGET", e.Target) }
	c := e.Client
	switch {
	case c.HTTP != nil:
		if u, err := url.Parse(expand(c.HTTP.URL)); err == nil {
			return u.Hostname()
		}
	case c.TCP != nil:
		return addrHost(expand(c.TCP.Address))
	case c.UDP != nil:
		return addrHost(expand(c.UDP.Address))
	}
	return ""
}

// addrHost is the host of HOST:PORT ("" when it has none).
func addrHost(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return h
}

// sensors checks the sensors key: a directory URL, a token file and a
// target sensor, named or found in the client.
func (v *validator) sensors() {
	s := v.e.Sensors
	if s == nil {
		return
	}
	u, err := url.Parse(s.Directory)
	switch {
	case s.Directory == "":
		v.missing("sensors.directory", "is required: the sensor directory's URL, http://HOST:PORT or https://HOST:PORT")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.add("sensors.directory", fmt.Sprintf("want http://HOST:PORT or https://HOST:PORT, got %q", s.Directory))
	}
	if v.e.SensorsTarget() == "" {
		v.missing("sensors.target", "is required: the sensor name of the service's host (the client names no host to take it from)")
	}
	for host, name := range s.Names {
		if name == "" {
			v.add("sensors.names."+host, "must not be empty: the sensor name of tester host "+host)
		}
	}
}

// missing reports a required key of sensors that is not set, at the line
// of its mapping.
func (v *validator) missing(key, msg string) {
	v.problems = append(v.problems, Problem{File: v.e.file, Line: v.e.lines["sensors"], Key: key, Msg: msg})
}
