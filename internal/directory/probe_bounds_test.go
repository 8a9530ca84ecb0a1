package directory

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Nothing a requester sends is taken on trust: unknown, stale or
// non-polling sensors, a pair of one, an unknown kind, garbage and huge
// bodies are refused, each naming the field, and counted.
func TestProbeRequestRefusals(t *testing.T) {
	lab := newProbeLab(t, Options{ProbesPerMinute: 100})
	ctx := context.Background()
	_, err := lab.req.RequestProbe(ctx, "a", "b", KindBandwidth)
	refused(t, "a sensor that never polled", err, http.StatusConflict, "src", "does not ask the directory for on-demand tests")
	lab.poll(t)
	_, err = lab.req.RequestProbe(ctx, "nosuch", "b", KindBandwidth)
	refused(t, "an unknown src", err, http.StatusNotFound, "src", `"nosuch" is not a registered sensor`)
	_, err = lab.req.RequestProbe(ctx, "a", "nosuch", KindBandwidth)
	refused(t, "an unknown dst", err, http.StatusNotFound, "dst", `"nosuch" is not a registered sensor`)
	_, err = lab.req.RequestProbe(ctx, "a", "a", KindBandwidth)
	refused(t, "a sensor to itself", err, http.StatusBadRequest, "dst", "same sensor")
	_, err = lab.req.RequestProbe(ctx, "a", "b", "jitter")
	refused(t, "an unknown kind", err, http.StatusBadRequest, "kind", "want")
	for _, body := range []string{`{"src":"a","dst":"b","kind":"latency","extra":1}`, `{"src":"a"`, `[1,2]`, `{"src":"a\u0000","dst":"b","kind":"latency"}`,
		`{"src":"a","dst":"b","kind":"latency"}` + strings.Repeat(" ", MaxBody)} {
		code := postRaw(t, lab.url+"/v1/probes", body)
		if code != http.StatusBadRequest && code != http.StatusRequestEntityTooLarge {
			t.Errorf("body %.40q…: %d; want 400 or 413", body, code)
		}
	}
	lab.clk.Add(DefaultTTL)
	lab.poll(t)
	_, err = lab.req.RequestProbe(ctx, "a", "b", KindBandwidth)
	refused(t, "a stale src", err, http.StatusConflict, "src", "is stale")
	m := metricsText(t, lab.url)
	for _, want := range []string{`route="POST /v1/probes",code="404"`, `route="POST /v1/probes",code="409"`,
		`route="POST /v1/probes",code="400"`, `route="POST /v1/probes",code="413"`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// postRaw posts body to url with the token and returns the status.
func postRaw(t *testing.T, url, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// One requester has at most ProbesPending probes open and asks at most
// ProbesPerMinute a minute: past either it is refused with 429, a
// Retry-After and when the next is possible; refusals count against its
// rate too.
func TestProbeRequesterRate(t *testing.T) {
	lab := newProbeLab(t, Options{ProbesPerMinute: 4, ProbesPending: 2})
	ctx := context.Background()
	lab.poll(t)
	must(lab.req.RequestProbe(ctx, "a", "b", KindLatency))
	must(lab.req.RequestProbe(ctx, "a", "b", KindLatency))
	_, err := lab.req.RequestProbe(ctx, "a", "b", KindLatency)
	refused(t, "a third open probe", err, http.StatusTooManyRequests, "", "2 of your probes are pending or running")
	for _, p := range lab.poll(t) {
		must(lab.a.AnswerProbe(ctx, p.ID, ProbeAnswer{Reason: "not now"}))
	}
	must(lab.req.RequestProbe(ctx, "a", "b", KindLatency)) // the 4th request of the minute
	_, err = lab.req.RequestProbe(ctx, "a", "b", KindLatency)
	refused(t, "the 5th request in a minute", err, http.StatusTooManyRequests, "", "4 probes a minute from one address at most; the next one possible in 1m0s")
	req, _ := http.NewRequest(http.MethodPost, lab.url+"/v1/probes", strings.NewReader(`{"src":"a","dst":"b","kind":"latency"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp := must(http.DefaultClient.Do(req))
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "60" {
		t.Errorf("over the rate: %d, Retry-After %q; want 429 and 60", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	lab.clk.Add(time.Minute)
	lab.poll(t)
	if _, err := lab.req.RequestProbe(ctx, "a", "b", KindLatency); err != nil {
		t.Errorf("a minute later: %v", err)
	}
	if m := metricsText(t, lab.url); !strings.Contains(m, `route="POST /v1/probes",code="429"} 3`) {
		t.Errorf("/metrics does not count the 3 refusals:\n%s", m)
	}
}

// However many requesters flood the directory, it holds at most
// MaxPendingProbes open and MaxKeptProbes in all.
func TestProbeFloodIsBounded(t *testing.T) {
	b := newProbeBook(1, 1)
	now := time.Now()
	b.lastPoll["a"] = now
	req := ProbeRequest{Src: "a", Dst: "b", Kind: KindLatency}
	var refusals int
	for i := range MaxPendingProbes + 10 {
		requester := "10.0." + string(rune('0'+i/256%10)) + "." + string(rune('0'+i%10)) + string(rune(i))
		if _, err := b.add(req, requester, now); err != nil {
			refusals++
			if !strings.Contains(err.Error(), "holds 1000 probes pending") {
				t.Fatalf("refusal %v", err)
			}
		}
	}
	if b.pending != MaxPendingProbes || refusals != 10 {
		t.Errorf("%d probes pending, %d refused; want %d and 10", b.pending, refusals, MaxPendingProbes)
	}
	for range MaxKeptProbes / MaxPendingProbes * 2 { // claim, fail, and ask again, many times over
		ps, _ := b.claim("a", now, false)
		for _, p := range ps {
			b.startAnswer(p.ID, now)
			b.finish(p.ID, nil, "no", now)
		}
		for i := range MaxPendingProbes {
			_, _ = b.add(req, string(rune(i)), now)
		}
	}
	if len(b.byID) > MaxKeptProbes || len(b.order) > MaxKeptProbes {
		t.Errorf("%d probes held; at most %d", len(b.byID), MaxKeptProbes)
	}
}

// A sensor polls for its own probes only: another's key, no signature,
// an unknown name and a wait past MaxProbeWait are refused.
func TestProbeClaimIsTheSensors(t *testing.T) {
	lab := newProbeLab(t, Options{})
	ctx := context.Background()
	lab.poll(t)
	p := must(lab.req.RequestProbe(ctx, "a", "b", KindLatency))
	_, err := lab.b.ClaimProbes(ctx, "a", 0)
	forbidden(t, "b claiming a's probes", err)
	_, err = lab.req.ClaimProbes(ctx, "a", 0)
	forbidden(t, "an unsigned claim of a's probes", err)
	_, err = lab.a.ClaimProbes(ctx, "nosuch", 0)
	refused(t, "an unknown sensor's claim", err, http.StatusNotFound, "name", "not registered")
	_, err = lab.a.ClaimProbes(ctx, "a", time.Hour)
	refused(t, "a wait of an hour", err, http.StatusBadRequest, "wait", "from 0 to 25")
	if got := must(lab.req.Probe(ctx, p.ID)); got.State != ProbePending {
		t.Errorf("after the refused claims: %s; want still pending", got.State)
	}
	_, err = lab.a.AnswerProbe(ctx, p.ID, ProbeAnswer{Reason: "not claimed yet"})
	refused(t, "an answer before the claim", err, http.StatusConflict, "id", "is pending")
	ps := lab.poll(t)
	for _, a := range []ProbeAnswer{{}, {Reason: "x\x1b[2J"}, {Reason: strings.Repeat("x", MaxReason+1)},
		{Reason: "both", Result: ptr(result("a", "b"))}} {
		_, err = lab.a.AnswerProbe(ctx, ps[0].ID, a)
		refused(t, "a bad answer", err, http.StatusBadRequest, fieldOf(err), "")
	}
	if _, err := lab.a.AnswerProbe(ctx, ps[0].ID, ProbeAnswer{Reason: "ok"}); err != nil {
		t.Errorf("the good answer after the bad ones: %v", err)
	}
}

// fieldOf is the field an APIError names.
func fieldOf(err error) string {
	var api *APIError
	if errors.As(err, &api) {
		return api.Field
	}
	return ""
}
