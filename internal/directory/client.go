package directory

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client calls a directory's API (used by diperf sensor, netmap, forecast).
type Client struct {
	base    string
	token   string
	hc      *http.Client
	key     ed25519.PrivateKey // signs every request when set (SignWith)
	maxRows int                // of Results and Forecasts; 0 = MaxRows (tests make it small)
}

// NewClient returns a client of the directory at base (http:// or
// https:// URL) with the bearer token; hc nil means a client with a 30 s
// timeout (give one with a TLS configuration for a private CA).
func NewClient(base string, token []byte, hc *http.Client) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("directory URL %q: want http://HOST:PORT or https://HOST:PORT", base)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{base: strings.TrimRight(base, "/"), token: string(token), hc: hc}, nil
}

// APIError is an answer other than success from the directory.
type APIError struct {
	Status int    // HTTP status
	Field  string // the field at fault, if the directory named one
	Msg    string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("directory answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Status == http.StatusUnauthorized {
		return s + " (wrong or missing token)"
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap makes a 404 on renewal ErrNotRegistered.
func (e *APIError) Unwrap() error {
	if e.Status == http.StatusNotFound {
		return ErrNotRegistered
	}
	return nil
}

// do sends a request with body in (nil: none) and decodes the answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	var b []byte
	if in != nil {
		var err error
		if b, err = json.Marshal(in); err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	c.sign(req, b)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return &requestError{method: method, path: path, err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var fe FieldError
		json.NewDecoder(io.LimitReader(resp.Body, MaxBody)).Decode(&fe) //nolint:errcheck // the status says enough
		return fmt.Errorf("%s %s: %w", method, path, &APIError{Status: resp.StatusCode, Field: fe.Field, Msg: fe.Msg})
	}
	if p, ok := out.(*page); ok {
		p.next = resp.Header.Get(NextCursorHeader)
	}
	lr := &io.LimitedReader{R: resp.Body, N: MaxAnswer + 1}
	if err := json.NewDecoder(lr).Decode(out); err != nil {
		if lr.N <= 0 {
			return fmt.Errorf("%s %s: the answer is larger than %d MiB", method, path, MaxAnswer>>20)
		}
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return nil
}

// MaxAnswer bounds what a client reads of one answer: a directory (or
// whatever answers at its address) cannot make it hold more.
const MaxAnswer = 64 << 20

// Register registers (or re-registers) a sensor and returns its lease.
func (c *Client) Register(ctx context.Context, r Registration) (Lease, error) {
	var l Lease
	return l, c.do(ctx, http.MethodPost, "/v1/sensors", r, &l)
}

// Renew renews a sensor's lease; an error wrapping ErrNotRegistered means
// the directory does not know it: register again.
func (c *Client) Renew(ctx context.Context, name string) (Lease, error) {
	var l Lease
	return l, c.do(ctx, http.MethodPost, "/v1/sensors/"+url.PathEscape(name)+"/renew", nil, &l)
}

// Sensors lists the registered sensors, of group if not "".
func (c *Client) Sensors(ctx context.Context, group string) ([]Sensor, error) {
	path := "/v1/sensors"
	if group != "" {
		path += "?" + url.Values{"group": {group}}.Encode()
	}
	var out []Sensor
	return out, c.do(ctx, http.MethodGet, path, nil, &out)
}

// AddResult writes a result and returns its id.
func (c *Client) AddResult(ctx context.Context, r Result) (int64, error) {
	var out struct{ ID int64 }
	return out.ID, c.do(ctx, http.MethodPost, "/v1/results", r, &out)
}

// Results reads every result q selects, page after page, or with
// q.Limit the first page of that many (client_pages.go).
func (c *Client) Results(ctx context.Context, q Query) ([]Result, error) {
	return pages[Result](ctx, c, "/v1/results", q)
}

// AddForecast writes a forecast and returns its id.
func (c *Client) AddForecast(ctx context.Context, f Forecast) (int64, error) {
	var out struct{ ID int64 }
	return out.ID, c.do(ctx, http.MethodPost, "/v1/forecasts", f, &out)
}

// Forecasts reads every forecast q selects (Since/Until apply to
// made_at), page after page, or with q.Limit the first page.
func (c *Client) Forecasts(ctx context.Context, q Query) ([]Forecast, error) {
	return pages[Forecast](ctx, c, "/v1/forecasts", q)
}
