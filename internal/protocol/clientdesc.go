package protocol

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Client kinds a ClientDesc may name. Append only.
const (
	ClientExec = "exec" // an executable run once per call: exit status 0 is success
	// ClientNull is a benchmark instrument: each call returns OK at once,
	// so a run measures diperf's own sample path. It takes no settings and
	// is not offered in the experiment file (controller.Options.Client).
	ClientNull       = "null"
	ClientHTTP       = "http"       // built-in HTTP client (HTTPDesc)
	ClientTCP        = "tcp"        // built-in TCP client (SocketDesc)
	ClientUDP        = "udp"        // built-in UDP request/response client (SocketDesc)
	ClientPersistent = "persistent" // a long-lived process told to make each call (Argv, Env)
)

// ClientKinds lists the kinds a tester of this build runs, for messages.
const ClientKinds = "exec, http, tcp, udp, persistent"

// ClientDesc says which client a tester runs: its kind, and the settings
// of that kind (the other kinds' fields stay empty).
type ClientDesc struct {
	Kind string   `json:"kind"`           // one of the Client constants
	Argv []string `json:"argv,omitempty"` // exec, persistent: the command, $DIPERF_* expanded and $$ made $ by the tester (experiment.ExpandArg)
	Env  []string `json:"env,omitempty"`  // exec, persistent: extra KEY=VALUE for the client
	// HTTP is the http kind's request and what counts as success.
	HTTP *HTTPDesc `json:"http,omitempty"`
	// Socket is the tcp and udp kinds' exchange.
	Socket *SocketDesc `json:"socket,omitempty"`
	// KillGraceNs is how long an exec or persistent client cut off (its
	// timeout, the tester stopping) has after SIGTERM before SIGKILL, ns
	// (0: SIGKILL at once); at most MaxKillGrace.
	KillGraceNs int64 `json:"kill_grace_ns,omitempty"`
}

// MaxKillGrace bounds ClientDesc.KillGraceNs (client.kill_grace).
const MaxKillGrace = time.Minute

// HTTPDesc is one HTTP request, made once per call.
type HTTPDesc struct {
	Method  string      `json:"method"`            // GET, POST, ...
	URL     string      `json:"url"`               // http:// or https://
	Headers [][2]string `json:"headers,omitempty"` // name, value; in order
	Body    []byte      `json:"body,omitempty"`    // request body
	// NoKeepAlive closes the connection after each call (a new connect,
	// and TLS handshake, per call); by default connections are reused.
	NoKeepAlive bool `json:"no_keep_alive,omitempty"`
	// Version is "1.1" (the default) or "2" (HTTP/2: over TLS by ALPN,
	// or cleartext h2c with prior knowledge for http:// URLs).
	Version string `json:"version,omitempty"`
	// CA is extra PEM certificates trusted for https (a test CA), sent
	// in the description so that remote testers need no file.
	CA         []byte `json:"ca,omitempty"`
	ServerName string `json:"server_name,omitempty"` // TLS server name ("" = the URL's host)
	Insecure   bool   `json:"insecure,omitempty"`    // do not verify the server's certificate
	// Success lists the status codes that are success, as inclusive
	// ranges; empty means 200-299.
	Success [][2]int `json:"success,omitempty"`
}

// SocketDesc is the tcp and udp kinds' exchange: connect (tcp), send
// Send, and read a reply until Expect is met.
type SocketDesc struct {
	Address string `json:"address"`        // HOST:PORT
	Send    []byte `json:"send,omitempty"` // the request payload (may be empty for tcp)
	// ConnectOnly (tcp): a call is a connect and nothing more.
	ConnectOnly bool `json:"connect_only,omitempty"`
	// KeepAlive (tcp): reuse the connection from call to call.
	KeepAlive bool `json:"keep_alive,omitempty"`
	// ExpectBytes: the reply must start with these bytes.
	ExpectBytes []byte `json:"expect_bytes,omitempty"`
	// ExpectLength: the reply is complete after this many bytes.
	ExpectLength int `json:"expect_length,omitempty"`
	// ExpectPattern: a regular expression (RE2) the reply must match;
	// the reply is read until it does.
	ExpectPattern string `json:"expect_pattern,omitempty"`
}

// Bounds of the built-in clients' settings received from the wire.
const (
	MaxHTTPHeaders = 256
	MaxPayload     = 256 << 10 // request body or socket payload, bytes
)

// Validate checks a ClientDesc received from the wire.
func (c *ClientDesc) Validate() error {
	if c.KillGraceNs < 0 || c.KillGraceNs > int64(MaxKillGrace) {
		return fmt.Errorf("testdesc: client kill grace %v is outside 0..%v", time.Duration(c.KillGraceNs), MaxKillGrace)
	}
	switch c.Kind {
	case ClientExec, ClientPersistent:
		if len(c.Argv) == 0 || len(c.Argv) > MaxArgv {
			return fmt.Errorf("testdesc: %s client argv must have 1..%d elements, got %d", c.Kind, MaxArgv, len(c.Argv))
		}
		if c.Argv[0] == "" {
			return fmt.Errorf("testdesc: %s client has an empty program name", c.Kind)
		}
		return c.only("argv")
	case ClientNull:
		return c.only("")
	case ClientHTTP:
		if c.HTTP == nil {
			return fmt.Errorf("testdesc: the http client has no request")
		}
		if err := c.only("http"); err != nil {
			return err
		}
		return c.HTTP.Validate()
	case ClientTCP, ClientUDP:
		if c.Socket == nil {
			return fmt.Errorf("testdesc: the %s client has no address", c.Kind)
		}
		if err := c.only("socket"); err != nil {
			return err
		}
		return c.Socket.Validate(c.Kind)
	case "":
		return fmt.Errorf("testdesc: the client has no kind (this tester runs %s clients)", ClientKinds)
	}
	return fmt.Errorf("testdesc: unknown client kind %q (this tester runs %s clients; is it an older diperf than its controller?)",
		c.Kind, ClientKinds)
}

// only checks that no settings but those of group are set.
func (c *ClientDesc) only(group string) error {
	set := map[string]bool{"argv": len(c.Argv) > 0 || len(c.Env) > 0, "http": c.HTTP != nil, "socket": c.Socket != nil}
	for g, on := range set {
		if on && g != group {
			return fmt.Errorf("testdesc: the %s client takes no %s settings", c.Kind, g)
		}
	}
	return nil
}

// Validate checks an HTTPDesc.
func (h *HTTPDesc) Validate() error {
	u, err := url.Parse(h.URL)
	switch {
	case err != nil:
		return fmt.Errorf("testdesc: http url: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("testdesc: http url %q: the scheme must be http or https", h.URL)
	case u.Host == "":
		return fmt.Errorf("testdesc: http url %q has no host", h.URL)
	case h.Method == "" || strings.ContainsAny(h.Method, " \t\r\n"):
		return fmt.Errorf("testdesc: http method %q is not a token", h.Method)
	case len(h.Headers) > MaxHTTPHeaders:
		return fmt.Errorf("testdesc: %d http headers (limit %d)", len(h.Headers), MaxHTTPHeaders)
	case len(h.Body) > MaxPayload:
		return fmt.Errorf("testdesc: http body of %d bytes (limit %d)", len(h.Body), MaxPayload)
	case h.Version != "" && h.Version != "1.1" && h.Version != "2":
		return fmt.Errorf("testdesc: http version %q (want 1.1 or 2)", h.Version)
	}
	for _, kv := range h.Headers {
		if kv[0] == "" || strings.ContainsAny(kv[0]+kv[1], "\r\n") || strings.ContainsAny(kv[0], " \t:") {
			return fmt.Errorf("testdesc: bad http header %q", kv[0])
		}
	}
	for _, r := range h.Success {
		if r[0] < 100 || r[1] > 999 || r[0] > r[1] {
			return fmt.Errorf("testdesc: http success range %d-%d is not within 100-999", r[0], r[1])
		}
	}
	return nil
}

// Validate checks a SocketDesc of a tcp or udp client.
func (s *SocketDesc) Validate(kind string) error {
	switch {
	case s.Address == "" || !strings.Contains(s.Address, ":"):
		return fmt.Errorf("testdesc: %s address %q is not HOST:PORT", kind, s.Address)
	case len(s.Send) > MaxPayload || len(s.ExpectBytes) > MaxPayload:
		return fmt.Errorf("testdesc: %s payload over %d bytes", kind, MaxPayload)
	case s.ExpectLength < 0 || s.ExpectLength > MaxPayload:
		return fmt.Errorf("testdesc: %s expect_length must be 0..%d", kind, MaxPayload)
	case kind == ClientUDP && (s.ConnectOnly || s.KeepAlive):
		return fmt.Errorf("testdesc: udp has no connect_only or keep_alive")
	case kind == ClientUDP && len(s.Send) == 0:
		return fmt.Errorf("testdesc: udp needs a payload to send")
	case s.ConnectOnly && (len(s.Send) > 0 || s.expects()):
		return fmt.Errorf("testdesc: a connect_only tcp client sends and expects nothing")
	}
	return nil
}

// expects reports whether a reply is awaited.
func (s *SocketDesc) expects() bool {
	return len(s.ExpectBytes) > 0 || s.ExpectLength > 0 || s.ExpectPattern != ""
}
