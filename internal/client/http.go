package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// HTTP makes one GET per call: a 2xx status is success. The body is read
// to its end (Reply.Bytes counts it) so that the connection can be reused.
type HTTP struct {
	URL     string
	Timeout time.Duration // a call past this is cut off and classed Timeout
	Client  *http.Client  // nil: http.DefaultClient
}

var _ Client = (*HTTP)(nil)

// NewHTTP checks that url makes a request and returns the client.
func NewHTTP(url string, timeout time.Duration) (*HTTP, error) {
	if _, err := http.NewRequest(http.MethodGet, url, nil); err != nil {
		return nil, err
	}
	return &HTTP{URL: url, Timeout: timeout}, nil
}

// Call makes one GET. A call cut off by the timeout is Timeout, one cut
// off by ctx is Cancelled; a transport error or a status other than 2xx is
// Failed, with the error or the status as its text.
func (h *HTTP) Call(ctx context.Context) Reply {
	cctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, h.URL, nil)
	if err != nil {
		return Reply{Status: sample.FailedToStart, Err: err.Error()}
	}
	cl := h.Client
	if cl == nil {
		cl = http.DefaultClient
	}
	resp, err := cl.Do(req)
	if err != nil {
		return h.failed(ctx, 0, err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return h.failed(ctx, n, err)
	}
	if resp.StatusCode/100 != 2 {
		return Reply{Status: sample.Failed, Bytes: n, Err: fmt.Sprintf("%s: %s", h.URL, resp.Status)}
	}
	return Reply{Status: sample.OK, Bytes: n}
}

// failed classes an error of a call whose caller's context is ctx.
func (h *HTTP) failed(ctx context.Context, n int64, err error) Reply {
	st := sample.Failed
	switch {
	case ctx.Err() != nil:
		st = sample.Cancelled
	case errors.Is(err, context.DeadlineExceeded):
		st = sample.Timeout
	}
	return Reply{Status: st, Bytes: n, Err: err.Error()}
}
