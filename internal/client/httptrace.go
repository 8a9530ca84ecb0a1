package client

import (
	"crypto/tls"
	"net/http/httptrace"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// phaseTrace times a net/http request's phases. Phases a reused
// connection skips stay 0. net/http calls the hooks from its own
// goroutines, but one at a time per phase and before the response is
// returned, so reading after Do returns is ordered by Do.
type phaseTrace struct {
	start                      time.Time
	dns0, conn0, tls0, wrote   time.Time
	dns, conn, tlsD, firstByte time.Duration
}

// trace returns the hooks, starting the clock.
func (p *phaseTrace) trace() *httptrace.ClientTrace {
	p.start = time.Now()
	return &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { p.dns0 = time.Now() },
		DNSDone:           func(httptrace.DNSDoneInfo) { p.dns = since(p.dns0) },
		ConnectStart:      func(string, string) { p.conn0 = time.Now() },
		ConnectDone:       func(string, string, error) { p.conn = since(p.conn0) },
		TLSHandshakeStart: func() { p.tls0 = time.Now() },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { p.tlsD = since(p.tls0) },
		WroteRequest:      func(httptrace.WroteRequestInfo) { p.wrote = time.Now() },
		GotFirstResponseByte: func() {
			if !p.wrote.IsZero() {
				p.firstByte = since(p.wrote)
			}
		},
	}
}

// since is the time from t, 0 when t was never set.
func since(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return time.Since(t)
}

// phases is what was measured.
func (p *phaseTrace) phases() sample.Phases {
	return sample.Phases{DNS: int64(p.dns), Connect: int64(p.conn), TLS: int64(p.tlsD), FirstByte: int64(p.firstByte)}
}
