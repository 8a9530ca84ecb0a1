package directory

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/diperf/diperf/internal/clock"
)

// RequestProbe asks sensor src, through the directory, to test dst now
// (kind: KindBandwidth or KindLatency); the probe comes back pending. A
// refusal is an *APIError: 404 naming the field of an unknown sensor,
// 409 for a sensor that cannot take it now, 429 past the requester's
// rate (the message says when the next is possible).
func (c *Client) RequestProbe(ctx context.Context, src, dst, kind string) (Probe, error) {
	var p Probe
	return p, c.do(ctx, http.MethodPost, "/v1/probes", ProbeRequest{Src: src, Dst: dst, Kind: kind}, &p)
}

// Probe reads probe id as it is now.
func (c *Client) Probe(ctx context.Context, id string) (Probe, error) {
	var p Probe
	return p, c.do(ctx, http.MethodGet, "/v1/probes/"+url.PathEscape(id), nil, &p)
}

// WaitProbe reads probe id every poll (0: a second) until it ends (done,
// failed or expired) and returns it; when ctx ends first, it returns the
// probe as last read and an error saying it had not ended.
func (c *Client) WaitProbe(ctx context.Context, id string, poll time.Duration) (Probe, error) {
	if poll <= 0 {
		poll = time.Second
	}
	var last Probe
	for {
		p, err := c.Probe(ctx, id)
		switch {
		case err == nil && p.Ended():
			return p, nil
		case err == nil:
			last = p
		case ctx.Err() == nil:
			return last, err
		}
		if !clock.Sleep(ctx, poll) {
			return last, fmt.Errorf("probe %s not ended (%s): %w", id, stateOr(last.State, "unknown"), ctx.Err())
		}
	}
}

func stateOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// ClaimProbes is a sensor's poll for the probes it is to run: its
// pending probes, claimed, as soon as there are some within wait (at
// most MaxProbeWait; none after it). The client must sign with the key
// name is bound to (SignWith).
func (c *Client) ClaimProbes(ctx context.Context, name string, wait time.Duration) ([]Probe, error) {
	q := url.Values{"wait": {strconv.FormatFloat(wait.Seconds(), 'f', -1, 64)}}
	var out []Probe
	return out, c.do(ctx, http.MethodPost, "/v1/sensors/"+url.PathEscape(name)+"/probes?"+q.Encode(), nil, &out)
}

// AnswerProbe gives a claimed probe's result (stored like any other) or
// why it was not run, and returns the probe as ended.
func (c *Client) AnswerProbe(ctx context.Context, id string, a ProbeAnswer) (Probe, error) {
	var p Probe
	return p, c.do(ctx, http.MethodPost, "/v1/probes/"+url.PathEscape(id)+"/answer", a, &p)
}
