package client

import (
	"crypto/tls"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// phaseTrace times a net/http request's phases; phases a reused
// connection skips stay 0. FirstByte runs from the request written to the
// response's first byte. net/http calls the hooks from its own goroutines,
// some (a dial given up on) after Do returned, hence the lock.
type phaseTrace struct {
	mu                         sync.Mutex
	dns0, conn0, tls0, wrote   time.Time
	dns, conn, tlsD, firstByte time.Duration
}

// trace returns the hooks.
func (p *phaseTrace) trace() *httptrace.ClientTrace {
	mark := func(t *time.Time) { p.mu.Lock(); *t = time.Now(); p.mu.Unlock() }
	span := func(d *time.Duration, t0 *time.Time) {
		p.mu.Lock()
		if !t0.IsZero() {
			*d = time.Since(*t0)
		}
		p.mu.Unlock()
	}
	return &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { mark(&p.dns0) },
		DNSDone:              func(httptrace.DNSDoneInfo) { span(&p.dns, &p.dns0) },
		ConnectStart:         func(string, string) { mark(&p.conn0) },
		ConnectDone:          func(string, string, error) { span(&p.conn, &p.conn0) },
		TLSHandshakeStart:    func() { mark(&p.tls0) },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { span(&p.tlsD, &p.tls0) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { mark(&p.wrote) },
		GotFirstResponseByte: func() { span(&p.firstByte, &p.wrote) },
	}
}

// phases is what was measured.
func (p *phaseTrace) phases() sample.Phases {
	p.mu.Lock()
	defer p.mu.Unlock()
	return sample.Phases{DNS: int64(p.dns), Connect: int64(p.conn), TLS: int64(p.tlsD), FirstByte: int64(p.firstByte)}
}
