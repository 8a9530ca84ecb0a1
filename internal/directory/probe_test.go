package directory

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// probeLab is a directory on a real socket with sensors a and b
// registered, each signing with its own key, and a requester holding
// only the token.
type probeLab struct {
	url       string
	clk       *fakeClock
	a, b, req *Client
}

func newProbeLab(t *testing.T, o Options) probeLab {
	t.Helper()
	store, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clk := &fakeClock{t: time.Now()} // signatures are checked against it
	o.Token, o.Now = []byte(testToken), clk.Now
	srv := httptest.NewServer(NewServer(store, o).Handler())
	t.Cleanup(srv.Close)
	hs := srv.URL
	lab := probeLab{url: hs, clk: clk, a: signedClient(t, hs, newKey(t)), b: signedClient(t, hs, newKey(t)), req: signedClient(t, hs, nil)}
	for _, p := range []struct {
		c    *Client
		name string
	}{{lab.a, "a"}, {lab.b, "b"}} {
		if _, err := p.c.Register(context.Background(), reg(p.name, "local")); err != nil {
			t.Fatal(err)
		}
	}
	return lab
}

// poll makes a ask for its probes without waiting: it counts as taking
// probes for ProbePollGrace.
func (l probeLab) poll(t *testing.T) []Probe {
	t.Helper()
	ps, err := l.a.ClaimProbes(context.Background(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// refused fails the test unless err is the directory's status naming
// field, with want in its message.
func refused(t *testing.T, what string, err error, status int, field, want string) {
	t.Helper()
	var api *APIError
	if !errors.As(err, &api) || api.Status != status || api.Field != field || !strings.Contains(api.Msg, want) {
		t.Errorf("%s: %v; want %d on %q saying %q", what, err, status, field, want)
	}
}

// A probe goes from the requester to its source sensor's open poll at
// once, is answered by that sensor only, and its result is stored like
// any other and shown with the probe.
func TestProbeRequestClaimAnswer(t *testing.T) {
	lab := newProbeLab(t, Options{})
	ctx := context.Background()
	lab.poll(t)
	claimed := make(chan []Probe, 1)
	opened := time.Now()
	go func() { ps, _ := lab.a.ClaimProbes(ctx, "a", 10*time.Second); claimed <- ps }()
	time.Sleep(50 * time.Millisecond) // the poll is open
	p, err := lab.req.RequestProbe(ctx, "a", "b", KindLatency)
	if err != nil || p.State != ProbePending || p.ID == "" {
		t.Fatalf("request: %+v, %v", p, err)
	}
	ps := <-claimed
	if len(ps) != 1 || ps[0].ID != p.ID || ps[0].State != ProbeRunning || ps[0].DstAddr != "b:7400" {
		t.Fatalf("claimed %+v; want the probe, running, with b's address", ps)
	}
	if d := time.Since(opened); d > 2*time.Second {
		t.Errorf("the poll answered %v after it opened; want at once after the request", d)
	}
	_, err = lab.b.AnswerProbe(ctx, p.ID, ProbeAnswer{Result: ptr(result("a", "b"))})
	forbidden(t, "b answering a's probe", err)
	_, err = lab.req.AnswerProbe(ctx, p.ID, ProbeAnswer{Result: ptr(result("a", "b"))})
	forbidden(t, "an unsigned answer to a's probe", err)
	_, err = lab.a.AnswerProbe(ctx, p.ID, ProbeAnswer{Result: ptr(result("b", "a"))})
	refused(t, "a result of another pair", err, http.StatusBadRequest, "result.src", "the probe's")
	done, err := lab.a.AnswerProbe(ctx, p.ID, ProbeAnswer{Result: ptr(result("a", "b"))})
	if err != nil || done.State != ProbeDone || done.Result == nil || done.Result.ID == 0 {
		t.Fatalf("a's answer: %+v, %v", done, err)
	}
	got, err := lab.req.WaitProbe(ctx, p.ID, time.Millisecond)
	if err != nil || got.State != ProbeDone || got.Result.ID != done.Result.ID {
		t.Fatalf("the requester reads %+v, %v", got, err)
	}
	rs, err := lab.req.Results(ctx, Query{Src: "a", Dst: "b"})
	if err != nil || len(rs) != 1 || rs[0].ID != done.Result.ID {
		t.Errorf("stored results %+v, %v; want the probe's", rs, err)
	}
	_, err = lab.a.AnswerProbe(ctx, p.ID, ProbeAnswer{Reason: "again"})
	refused(t, "a second answer", err, http.StatusConflict, "id", "is done")
}

func ptr[T any](v T) *T { return &v }

// A sensor's failure is the probe's reason; a probe whose sensor stops
// asking for its probes expires with a reason, and its late result is
// refused (410) and not stored.
func TestProbeFailsAndExpires(t *testing.T) {
	lab := newProbeLab(t, Options{})
	ctx := context.Background()
	lab.poll(t)
	p1 := must(lab.req.RequestProbe(ctx, "a", "b", KindBandwidth))
	p2 := must(lab.req.RequestProbe(ctx, "a", "b", KindLatency))
	if ps := lab.poll(t); len(ps) != 2 {
		t.Fatalf("claimed %d probes, want 2", len(ps))
	}
	f, err := lab.a.AnswerProbe(ctx, p1.ID, ProbeAnswer{Reason: "over budget, next possible in 40 s"})
	if err != nil || f.State != ProbeFailed || !strings.Contains(f.Reason, "sensor a: over budget, next possible in 40 s") {
		t.Errorf("failed answer: %+v, %v", f, err)
	}
	lab.clk.Add(ProbePollGrace)
	e := must(lab.req.Probe(ctx, p2.ID))
	if e.State != ProbeExpired || !strings.Contains(e.Reason, "stopped asking") {
		t.Errorf("after a stopped polling: %+v; want expired, saying why", e)
	}
	_, err = lab.a.AnswerProbe(ctx, p2.ID, ProbeAnswer{Result: ptr(result("a", "b"))})
	refused(t, "a result for an expired probe", err, http.StatusGone, "id", "expired")
	if rs := must(lab.req.Results(ctx, Query{})); len(rs) != 0 {
		t.Errorf("%d results stored; want none from an expired probe", len(rs))
	}
	m := metricsText(t, lab.url)
	for _, want := range []string{`diperf_directory_probes_ended_total{state="expired"} 1`, `diperf_directory_probes_ended_total{state="failed"} 1`,
		`route="POST /v1/probes/{id}/answer",code="410"`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// A probe claimed and never answered by a sensor that polls on expires
// ProbeAnswerWithin after its claim. (Sensor c's name is bound to no
// key: its polls are unsigned, and the directory's clock may run ahead
// of the signatures' window.)
func TestProbeExpiresUnanswered(t *testing.T) {
	lab := newProbeLab(t, Options{})
	ctx := context.Background()
	registerAll(t, lab.req, "c")
	poll := func() { must(lab.req.ClaimProbes(ctx, "c", 0)) }
	poll()
	p := must(lab.req.RequestProbe(ctx, "c", "b", KindLatency))
	poll()
	for range 5 { // c polls on, and does not answer
		lab.clk.Add(ProbeAnswerWithin / 5)
		poll()
	}
	if e := must(lab.req.Probe(ctx, p.ID)); e.State != ProbeExpired || !strings.Contains(e.Reason, "did not answer within 2m0s") {
		t.Errorf("unanswered for %v: %+v", ProbeAnswerWithin, e)
	}
}
