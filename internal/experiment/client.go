package experiment

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Client kinds, the keys of client: exactly one of them is set.
const (
	KindExec       = "exec"
	KindHTTP       = "http"
	KindTCP        = "tcp"
	KindUDP        = "udp"
	KindPersistent = "persistent"
)

// Kind returns the client kind c sets, or "" when it sets none or more
// than one.
func (c *Client) Kind() string {
	kinds := c.kinds()
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

// kinds lists the kinds c sets, in the order of the file's keys.
func (c *Client) kinds() []string {
	var k []string
	for _, x := range []struct {
		name string
		set  bool
	}{{KindExec, len(c.Exec) > 0}, {KindHTTP, c.HTTP != nil}, {KindTCP, c.TCP != nil},
		{KindUDP, c.UDP != nil}, {KindPersistent, len(c.Persistent) > 0}} {
		if x.set {
			k = append(k, x.name)
		}
	}
	return k
}

// client checks that exactly one client kind is set, and its settings.
func (v *validator) client() {
	c := &v.e.Client
	switch kinds := c.kinds(); len(kinds) {
	case 0:
		for _, k := range []string{KindExec, KindPersistent} {
			if _, set := v.e.lines["client."+k]; set { // "exec: []"
				v.add("client."+k, "must not be empty: give the command to run, e.g. [curl, -sf, \"$DIPERF_TARGET\"]")
				return
			}
		}
		v.add("client", "give exactly one of exec, http, tcp, udp or persistent, e.g. exec: [curl, -sf, \"$DIPERF_TARGET\"] "+
			"or http: {url: \"$DIPERF_TARGET\"}")
		return
	case 1:
	default:
		v.add("client."+kinds[1], fmt.Sprintf("give exactly one client kind, got %s", strings.Join(kinds, " and ")))
		return
	}
	for _, a := range []struct {
		key  string
		argv []string
	}{{"client.exec", c.Exec}, {"client.persistent", c.Persistent}} {
		if len(a.argv) > 0 && a.argv[0] == "" {
			v.add(a.key+"[0]", "the program name must not be empty")
		}
		if !v.e.recorded {
			v.argvVars(a.key, a.argv)
		}
	}
	if c.HTTP != nil {
		v.http(c.HTTP)
	}
	if c.TCP != nil {
		v.socket("client.tcp", c.TCP, true)
	}
	if c.UDP != nil {
		v.socket("client.udp", c.UDP, false)
	}
}

// http checks the HTTP client's settings.
func (v *validator) http(h *HTTPClient) {
	u := strings.ReplaceAll(h.URL, "$DIPERF_TARGET", "http://target")
	if pu, err := url.Parse(u); h.URL == "" || err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		v.add("client.http.url", fmt.Sprintf("want an http:// or https:// URL with a host, got %q", h.URL))
	}
	if h.Method != "" && strings.ContainsAny(h.Method, " \t\r\n") {
		v.add("client.http.method", fmt.Sprintf("want a method such as GET or POST, got %q", h.Method))
	}
	for k, val := range h.Headers {
		if k == "" || strings.ContainsAny(k, " \t:\r\n") || strings.ContainsAny(val, "\r\n") {
			v.add("client.http.headers."+k, "a header name is a token, and neither holds a line break")
		}
	}
	if h.Body != "" && h.BodyFile != "" {
		v.add("client.http.body_file", "give body or body_file, not both")
	}
	v.readable("client.http.body_file", h.BodyFile)
	if h.Version != "" && h.Version != "1.1" && h.Version != "2" {
		v.add("client.http.version", fmt.Sprintf("want \"1.1\" or \"2\", got %q", h.Version))
	}
	if h.TLS != nil {
		v.readable("client.http.tls.ca_file", h.TLS.CAFile)
	}
	if _, err := SuccessRanges(h.Success); err != nil {
		v.add("client.http.success", err.Error())
	}
}

// readable reports a file that is set but cannot be read. It reads a byte,
// not the file: the controller reads it whole once, when the run starts.
func (v *validator) readable(key, path string) {
	if path == "" {
		return
	}
	f, err := os.Open(path)
	if err == nil {
		_, err = f.Read(make([]byte, 1)) // a directory opens, but fails here
		if errors.Is(err, io.EOF) {
			err = nil
		}
		f.Close()
	}
	if err != nil {
		v.add(key, fmt.Sprintf("cannot read it: %v", err))
	}
}

// socket checks a tcp (stream) or udp client.
func (v *validator) socket(key string, s *SocketClient, stream bool) {
	addr := strings.ReplaceAll(s.Address, "$DIPERF_TARGET", "target:1")
	if i := strings.LastIndexByte(addr, ':'); i <= 0 || i == len(addr)-1 {
		v.add(key+".address", fmt.Sprintf("want HOST:PORT, got %q", s.Address))
	}
	v.socketBytes(key, s)
	if s.Expect.Length < 0 {
		v.add(key+".expect.length", fmt.Sprintf("must not be negative, got %d", s.Expect.Length))
	}
	if _, err := regexp.Compile(s.Expect.Pattern); err != nil {
		v.add(key+".expect.pattern", fmt.Sprintf("not a regular expression: %v", err))
	}
	expects := s.Expect != Expect{}
	switch {
	case !stream && (s.ConnectOnly || s.KeepAlive):
		v.add(key, "udp has no connect_only or keep_alive")
	case !stream && s.Send == "" && s.SendHex == "":
		v.add(key+".send", "udp needs a payload to send")
	case s.ConnectOnly && (s.Send != "" || s.SendHex != "" || expects):
		v.add(key+".connect_only", "a connect_only client sends and expects nothing")
	}
}

// SuccessRanges parses client.http.success: codes ("404") and inclusive
// ranges ("200-299"), each within 100-999. None gives nil (200-299).
func SuccessRanges(items []string) ([][2]int, error) {
	var out [][2]int
	for _, it := range items {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(it), "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil || a < 100 || b > 999 || a > b {
			return nil, fmt.Errorf("want status codes or ranges within 100-999 such as \"200-299\" or \"404\", got %q", it)
		}
		out = append(out, [2]int{a, b})
	}
	return out, nil
}

// rate checks the open model's settings.
func (v *validator) rate() {
	r := v.e.Schedule.Rate
	if r == nil {
		return
	}
	finite := func(key string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > MaxRate {
			v.add(key, fmt.Sprintf("must be a rate of 0 to %d calls/s, got %v", MaxRate, x))
		}
	}
	finite("schedule.rate.target", r.Target)
	finite("schedule.rate.start", r.Start)
	if !slices.Contains([]string{"", RatePerRun, RatePerTester}, r.Per) {
		v.add("schedule.rate.per", fmt.Sprintf("want %q or %q, got %q", RatePerRun, RatePerTester, r.Per))
	}
	if !slices.Contains([]string{"", ArrivalsUniform, ArrivalsPoisson}, r.Arrivals) {
		v.add("schedule.rate.arrivals", fmt.Sprintf("want %q or %q, got %q", ArrivalsUniform, ArrivalsPoisson, r.Arrivals))
	}
	if r.Target != 0 && len(r.Stages) > 0 {
		v.add("schedule.rate.target", "give target (a constant rate) or stages, not both")
	}
	if r.Target == 0 && len(r.Stages) == 0 && v.e.Search == nil { // a search sets the rate
		v.add("schedule.rate", "give a rate in calls/s (rate: 500) or stages")
	}
	if len(r.Stages) > MaxStages {
		v.add("schedule.rate.stages", fmt.Sprintf("at most %d stages, got %d", MaxStages, len(r.Stages)))
	}
	var total Duration
	for i, s := range r.Stages {
		key := fmt.Sprintf("schedule.rate.stages[%d]", i)
		v.positive(key+".duration", s.Duration)
		finite(key+".target", s.Target)
		total += s.Duration
	}
	if total > v.e.Schedule.TesterDuration {
		v.add("schedule.rate.stages", fmt.Sprintf("the stages last %v, longer than schedule.tester_duration %v", total, v.e.Schedule.TesterDuration))
	}
	v.notNegative("schedule.rate.max_lateness", r.MaxLateness)
}

// The open model's settings.
const (
	RatePerRun      = "run"
	RatePerTester   = "tester"
	ArrivalsUniform = "uniform"
	ArrivalsPoisson = "poisson"
	MaxRate         = 10_000_000 // calls/s
	MaxStages       = 1000
)
