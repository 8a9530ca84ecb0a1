package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// MaxBody bounds a page's size: a larger one is a failed scrape. The page
// is read as it comes, never held whole.
const MaxBody = 16 << 20

// maxRedirects bounds the redirects followed within an endpoint's own
// origin.
const maxRedirects = 3

// ErrRedirect is why a scrape whose page redirects to another origin (or
// too many times) failed: the points would be another server's, stored
// under the endpoint's name.
var ErrRedirect = errors.New("redirected")

// errTooLarge is a page past MaxBody.
var errTooLarge = errors.New("page larger than 16 MiB")

// maxHeader bounds the header of a page's response (net/http's default
// is 10 MB).
const maxHeader = 64 << 10

// client is the scraper's HTTP client: redirects are followed within the
// endpoint's own scheme, host and port only, and a response's header is
// at most maxHeader bytes.
var client = &http.Client{CheckRedirect: sameOrigin, Transport: transport()}

// transport is net/http's default transport with the header bounded.
func transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxResponseHeaderBytes = maxHeader
	return t
}

// sameOrigin lets a redirect through when it stays on the first
// request's scheme, host and port, at most maxRedirects times.
func sameOrigin(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	if origin(req.URL) != origin(from) {
		return fmt.Errorf("%w to %s, not %s's own host and port: not followed (give the page's own URL)",
			ErrRedirect, req.URL.Redacted(), origin(from))
	}
	if len(via) > maxRedirects {
		return fmt.Errorf("%w more than %d times: not followed further", ErrRedirect, maxRedirects)
	}
	return nil
}

// origin is u's scheme://host:port, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// httpGet opens url's page; reading past MaxBody bytes of it is an error.
// A status other than 200 is an error.
func httpGet(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return &capped{rc: resp.Body, left: MaxBody, url: url}, nil
}

// capped reads a page of at most left more bytes.
type capped struct {
	rc   io.ReadCloser
	left int64
	url  string
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, fmt.Errorf("GET %s: %w", c.url, errTooLarge)
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, fmt.Errorf("GET %s: %w", c.url, errTooLarge)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("GET %s: %w", c.url, err)
	}
	return n, err
}

func (c *capped) Close() error { return c.rc.Close() }
