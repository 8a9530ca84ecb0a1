package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// HTTP makes one HTTP request per call through net/http: every setting of
// protocol.HTTPDesc (HTTP/1.1 and HTTP/2, TLS, keep-alive or not). Its
// Call serves one client loop per goroutine; for plain http:// HTTP/1.1
// keep-alive, New returns an HTTPLoop, whose Loop drives all the client
// loops from one event loop at a fraction of the CPU.
type HTTP struct {
	desc    protocol.HTTPDesc
	url     *url.URL
	timeout time.Duration
	client  *http.Client
}

var _ Client = (*HTTP)(nil)

// NewHTTP returns a client making one GET of url per call, 2xx success.
func NewHTTP(url string, timeout time.Duration) (*HTTP, error) {
	return NewHTTPDesc(protocol.HTTPDesc{Method: http.MethodGet, URL: url}, timeout)
}

// NewHTTPDesc checks d and returns a client making its request per call.
func NewHTTPDesc(d protocol.HTTPDesc, timeout time.Duration) (*HTTP, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("http client: %w", err)
	}
	if timeout <= 0 {
		return nil, errors.New("http client: the call timeout must be positive")
	}
	u, _ := url.Parse(d.URL) // Validate parsed it
	tr, err := transport(&d, u)
	if err != nil {
		return nil, err
	}
	return &HTTP{desc: d, url: u, timeout: timeout, client: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// transport builds the net/http transport d asks for.
func transport(d *protocol.HTTPDesc, u *url.URL) (*http.Transport, error) {
	tc := &tls.Config{ServerName: d.ServerName, InsecureSkipVerify: d.Insecure} //nolint:gosec // Insecure is the user's explicit choice
	if len(d.CA) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(d.CA) {
			return nil, errors.New("http client: the CA holds no PEM certificate")
		}
		tc.RootCAs = pool
	}
	tr := &http.Transport{
		Proxy:               nil, // load goes to the target, never through a proxy
		TLSClientConfig:     tc,
		DisableKeepAlives:   d.NoKeepAlive,
		DisableCompression:  true,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 1 << 16,
		IdleConnTimeout:     90 * time.Second,
		// as the event loop's parser: a bigger head is an attack or a fault
		MaxResponseHeaderBytes: maxRespHead,
		ForceAttemptHTTP2:      d.Version == "2",
	}
	var p http.Protocols
	switch {
	case d.Version != "2":
		p.SetHTTP1(true)
	case u.Scheme == "http":
		p.SetUnencryptedHTTP2(true) // h2c with prior knowledge
	default:
		p.SetHTTP2(true)
	}
	tr.Protocols = &p
	return tr, nil
}

// Close closes the idle connections.
func (h *HTTP) Close() error {
	h.client.CloseIdleConnections()
	return nil
}

// Call makes the request once. A call cut off by the timeout is Timeout,
// one cut off by ctx Cancelled; a transport error or a status outside the
// success ranges is Failed, with the error or "HTTP 503" as its text.
func (h *HTTP) Call(ctx context.Context) Reply {
	cctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	var ph phaseTrace
	req, err := h.request(httptrace.WithClientTrace(cctx, ph.trace()))
	if err != nil {
		return Reply{Status: sample.FailedToStart, Err: err.Error()}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return h.failed(ctx, 0, err, ph.phases())
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return h.failed(ctx, n, err, ph.phases())
	}
	if !successful(h.desc.Success, resp.StatusCode) {
		return Reply{Status: sample.Failed, Bytes: n, Err: fmt.Sprintf("HTTP %d", resp.StatusCode), Phases: ph.phases()}
	}
	return Reply{Status: sample.OK, Bytes: n, Phases: ph.phases()}
}

// request builds one request of the description.
func (h *HTTP) request(ctx context.Context) (*http.Request, error) {
	var body io.Reader
	if len(h.desc.Body) > 0 {
		body = bytes.NewReader(h.desc.Body)
	}
	req, err := http.NewRequestWithContext(ctx, h.desc.Method, h.desc.URL, body)
	if err != nil {
		return nil, fmt.Errorf("http client: %w", err)
	}
	for _, kv := range h.desc.Headers {
		if http.CanonicalHeaderKey(kv[0]) == "Host" {
			req.Host = kv[1]
			continue
		}
		req.Header.Add(kv[0], kv[1])
	}
	return req, nil
}

// failed classes an error of a call whose caller's context is ctx.
func (h *HTTP) failed(ctx context.Context, n int64, err error, ph sample.Phases) Reply {
	st := sample.Failed
	switch {
	case ctx.Err() != nil:
		st = sample.Cancelled
	case errors.Is(err, context.DeadlineExceeded):
		st = sample.Timeout
	}
	return Reply{Status: st, Bytes: n, Err: err.Error(), Phases: ph}
}

// successful reports whether code is in one of the ranges (default 2xx).
func successful(ranges [][2]int, code int) bool {
	if len(ranges) == 0 {
		return code >= 200 && code <= 299
	}
	for _, r := range ranges {
		if code >= r[0] && code <= r[1] {
			return true
		}
	}
	return false
}
