package controller

import (
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
)

// clientDesc turns the experiment's client into what testers are told,
// reading the files it names (an HTTP body, a CA) once, here, so that
// testers on other hosts need none of them. $DIPERF_TARGET in a URL or an
// address is the experiment's target.
func clientDesc(e *experiment.Experiment) (protocol.ClientDesc, error) {
	c := &e.Client
	expand := func(s string) string {
		return strings.NewReplacer("${DIPERF_TARGET}", e.Target, "$DIPERF_TARGET", e.Target).Replace(s)
	}
	switch c.Kind() {
	case experiment.KindExec:
		return protocol.ClientDesc{Kind: protocol.ClientExec, Argv: c.Exec, KillGraceNs: int64(c.KillGrace.D())}, nil
	case experiment.KindPersistent:
		return protocol.ClientDesc{Kind: protocol.ClientPersistent, Argv: c.Persistent, KillGraceNs: int64(c.KillGrace.D())}, nil
	case experiment.KindHTTP:
		h, err := httpDesc(c.HTTP, expand)
		return protocol.ClientDesc{Kind: protocol.ClientHTTP, HTTP: h}, err
	case experiment.KindTCP:
		s, err := socketDesc(c.TCP, expand)
		return protocol.ClientDesc{Kind: protocol.ClientTCP, Socket: s}, err
	case experiment.KindUDP:
		s, err := socketDesc(c.UDP, expand)
		return protocol.ClientDesc{Kind: protocol.ClientUDP, Socket: s}, err
	}
	return protocol.ClientDesc{}, errs.Usagef("the experiment's client sets no single kind (exec, http, tcp, udp or persistent)")
}

// httpDesc builds the http client's description.
func httpDesc(h *experiment.HTTPClient, expand func(string) string) (*protocol.HTTPDesc, error) {
	d := &protocol.HTTPDesc{Method: h.Method, URL: expand(h.URL), Body: []byte(h.Body), Version: h.Version,
		NoKeepAlive: h.KeepAlive != nil && !*h.KeepAlive}
	if d.Method == "" {
		d.Method = "GET"
	}
	for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
		d.Headers = append(d.Headers, [2]string{k, h.Headers[k]})
	}
	if h.BodyFile != "" {
		b, err := os.ReadFile(h.BodyFile)
		if err != nil {
			return nil, errs.Usage(fmt.Errorf("client.http.body_file: %w", err), "")
		}
		d.Body = b
	}
	if t := h.TLS; t != nil {
		d.ServerName, d.Insecure = t.ServerName, t.Insecure
		if t.CAFile != "" {
			b, err := os.ReadFile(t.CAFile)
			if err != nil {
				return nil, errs.Usage(fmt.Errorf("client.http.tls.ca_file: %w", err), "")
			}
			d.CA = b
		}
	}
	var err error
	if d.Success, err = experiment.SuccessRanges(h.Success); err != nil {
		return nil, errs.Usage(fmt.Errorf("client.http.success: %w", err), "")
	}
	if err := d.Validate(); err != nil {
		return nil, errs.Usage(fmt.Errorf("client.http: %w", err), "")
	}
	return d, nil
}

// socketDesc builds a tcp or udp client's description.
func socketDesc(s *experiment.SocketClient, expand func(string) string) (*protocol.SocketDesc, error) {
	d := &protocol.SocketDesc{Address: expand(s.Address), Send: []byte(s.Send), ConnectOnly: s.ConnectOnly,
		KeepAlive: s.KeepAlive, ExpectBytes: s.Expect.Prefix(), ExpectLength: s.Expect.Length, ExpectPattern: s.Expect.Pattern}
	if s.SendHex != "" {
		b, err := hex.DecodeString(s.SendHex)
		if err != nil {
			return nil, errs.Usage(fmt.Errorf("send_hex: %w", err), "")
		}
		d.Send = b
	}
	return d, nil
}

// rateDesc is the open model's share of the tester in slot, or nil in
// the closed loop: a rate per run is split evenly over the testers, and
// the last stage's target holds until the tester's duration is over.
func rateDesc(e *experiment.Experiment, slot int) *protocol.RateDesc {
	r := e.Schedule.Rate
	if r == nil {
		return nil
	}
	share := 1.0
	if r.Per != experiment.RatePerTester {
		share = 1 / float64(max(e.Schedule.Testers, 1))
	}
	d := &protocol.RateDesc{Arrivals: r.Arrivals, MaxLatenessNs: int64(r.MaxLateness.D()), Seed: uint64(slot) + 1}
	if d.Arrivals == "" {
		d.Arrivals = protocol.ArrivalsUniform
	}
	if d.MaxLatenessNs == 0 {
		d.MaxLatenessNs = int64(e.Client.Timeout.D())
	}
	total := int64(e.Schedule.TesterDuration.D())
	if len(r.Stages) == 0 {
		d.Stages = []protocol.StageDesc{{DurationNs: total, From: r.Target * share, To: r.Target * share}}
		return d
	}
	from, used := r.Start, int64(0)
	for _, s := range r.Stages {
		d.Stages = append(d.Stages, protocol.StageDesc{DurationNs: int64(s.Duration.D()), From: from * share, To: s.Target * share})
		from, used = s.Target, used+int64(s.Duration.D())
	}
	if rest := total - used; rest > 0 {
		d.Stages = append(d.Stages, protocol.StageDesc{DurationNs: rest, From: from * share, To: from * share})
	}
	return d
}
