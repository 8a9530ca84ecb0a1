package controller

import (
	"reflect"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
)

// TestRateDesc checks each tester's share of the open model: a run's rate
// split over its testers, stages ramping from the previous target, and the
// last target held to the end of the tester's duration.
func TestRateDesc(t *testing.T) {
	t.Parallel()
	e := experiment.Default()
	e.Schedule.Testers = 4
	e.Schedule.TesterDuration = experiment.Duration(60 * time.Second)
	if rateDesc(&e, 0) != nil {
		t.Fatal("a closed-loop run gives testers a rate")
	}
	e.Schedule.Rate = &experiment.Rate{Target: 1000}
	got := rateDesc(&e, 2)
	want := &protocol.RateDesc{Arrivals: "uniform", MaxLatenessNs: int64(30 * time.Second), Seed: 3,
		Stages: []protocol.StageDesc{{DurationNs: int64(60 * time.Second), From: 250, To: 250}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rate 1000 per run over 4 testers:\n got %+v\nwant %+v", got, want)
	}
	e.Schedule.Rate = &experiment.Rate{Per: "tester", Arrivals: "poisson", Start: 10, MaxLateness: experiment.Duration(time.Second),
		Stages: []experiment.Stage{{Duration: experiment.Duration(10 * time.Second), Target: 100}, {Duration: experiment.Duration(20 * time.Second), Target: 50}}}
	got = rateDesc(&e, 0)
	s := int64(time.Second)
	want = &protocol.RateDesc{Arrivals: "poisson", MaxLatenessNs: s, Seed: 1, Stages: []protocol.StageDesc{
		{DurationNs: 10 * s, From: 10, To: 100}, {DurationNs: 20 * s, From: 100, To: 50}, {DurationNs: 30 * s, From: 50, To: 50}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stages per tester:\n got %+v\nwant %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
}

// TestClientDescKinds checks what testers are told for each client kind.
func TestClientDescKinds(t *testing.T) {
	t.Parallel()
	e := experiment.Default()
	e.Target = "http://127.0.0.1:8080"
	no := false
	e.Client.HTTP = &experiment.HTTPClient{URL: "$DIPERF_TARGET/a", Headers: map[string]string{"B": "2", "A": "1"}, KeepAlive: &no,
		Success: []string{"200-204"}}
	d, err := clientDesc(&e)
	if err != nil {
		t.Fatal(err)
	}
	h := d.HTTP
	if d.Kind != protocol.ClientHTTP || h.URL != "http://127.0.0.1:8080/a" || h.Method != "GET" || !h.NoKeepAlive ||
		!reflect.DeepEqual(h.Headers, [][2]string{{"A", "1"}, {"B", "2"}}) || !reflect.DeepEqual(h.Success, [][2]int{{200, 204}}) {
		t.Errorf("http: %+v", h)
	}
	e.Client.HTTP = nil
	e.Client.UDP = &experiment.SocketClient{Address: "127.0.0.1:9", SendHex: "0a0b"}
	if d, err = clientDesc(&e); err != nil || d.Kind != protocol.ClientUDP || string(d.Socket.Send) != "\n\v" || d.Validate() != nil {
		t.Errorf("udp: %+v, %v", d, err)
	}
}
