package experiment

import (
	"strings"
	"testing"
)

// TestClientKinds parses each client kind and the open model from a file
// as a user writes them.
func TestClientKinds(t *testing.T) {
	t.Parallel()
	in := `
client:
  http:
    url: $DIPERF_TARGET/index.html
    method: POST
    headers: {Content-Type: application/json, X-Trace: "1"}
    body: '{"a": 1}'
    keep_alive: false
    version: "2"
    tls: {insecure: true, server_name: example.test}
    success: ["200-299", "404"]
schedule:
  tester_duration: 60s
  clients_per_tester: 50
  rate:
    per: tester
    arrivals: poisson
    start: 10
    stages: [{duration: 10s, target: 100}, {duration: 50s, target: 100}]
    max_lateness: 2s
`
	e, err := Parse([]byte(in), "exp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h := e.Client.HTTP
	if e.Client.Kind() != KindHTTP || h.Method != "POST" || h.Headers["X-Trace"] != "1" || h.KeepAlive == nil || *h.KeepAlive ||
		h.Version != "2" || !h.TLS.Insecure || len(h.Success) != 2 {
		t.Errorf("http client: %+v", h)
	}
	r := e.Schedule.Rate
	if r == nil || r.Per != RatePerTester || r.Arrivals != ArrivalsPoisson || r.Start != 10 || len(r.Stages) != 2 ||
		r.Stages[0].Target != 100 || r.MaxLateness.D().String() != "2s" {
		t.Errorf("rate: %+v", r)
	}
	// The run directory's copy reads back the same.
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(b, "experiment.yaml")
	if err != nil || !sameValues(*again, *e) {
		t.Fatalf("marshalled and parsed again: %v\n%s", err, b)
	}
	short, err := Parse([]byte("client: {tcp: {address: \"127.0.0.1:7\", send: \"hi\\n\", expect: {pattern: \"^hi\"}, keep_alive: true}}\nschedule: {rate: 500}\n"), "x.yaml")
	if err != nil || short.Schedule.Rate.Target != 500 || short.Client.Kind() != KindTCP || short.Client.TCP.Send != "hi\n" {
		t.Fatalf("rate: 500 and a tcp client: %+v, %v", short, err)
	}
}

// TestClientProblems checks the messages for bad client and rate keys:
// each names its key and line.
func TestClientProblems(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"client: {exec: [true], http: {url: http://x/}}", "x.yaml:1: client.http: give exactly one client kind, got exec and http"},
		{"client:\n  http: {url: ftp://x/}", "x.yaml:2: client.http.url: want an http:// or https:// URL"},
		{"client:\n  http: {url: http://x/, success: [\"99-200\"]}", "client.http.success: want status codes"},
		{"client:\n  http: {url: http://x/, body_file: /nonexistent/b}", "client.http.body_file: cannot read it"},
		{"client:\n  http: {url: http://x/, body_file: /tmp}", "client.http.body_file: cannot read it"},
		{"client:\n  tcp: {address: nohost}", "x.yaml:2: client.tcp.address: want HOST:PORT"},
		{"client:\n  udp: {address: \"h:1\"}", "client.udp.send: udp needs a payload"},
		{"client:\n  tcp: {address: \"h:1\", connect_only: true, send: x}", "client.tcp.connect_only: a connect_only client sends and expects nothing"},
		{"client:\n  tcp: {address: \"h:1\", expect: {pattern: \"(\"}}", "client.tcp.expect.pattern: not a regular expression"},
		{"client: {exec: [true]}\nschedule:\n  rate: {arrivals: bursty, target: 5}", "x.yaml:3: schedule.rate.arrivals: want \"uniform\" or \"poisson\""},
		{"client: {exec: [true]}\nschedule:\n  rate: -5", "x.yaml:3: schedule.rate.target: must be a rate of 0 to"},
		{"client: {exec: [true]}\nschedule:\n  tester_duration: 10s\n  rate: {stages: [{duration: 20s, target: 5}]}", "schedule.rate.stages: the stages last 20s, longer than schedule.tester_duration 10s"},
		{"client: {exec: [true]}\nschedule:\n  rate: {per: host, target: 1}", "schedule.rate.per: want \"run\" or \"tester\""},
	} {
		_, err := Parse([]byte(tt.in), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}
