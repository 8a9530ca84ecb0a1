package dashboard

import (
	"net/http"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Limits of the dashboard's connections that have not proved themselves
// (no request with the token yet): as for the controller's port (package
// preauth), a new one over a cap closes the oldest silent one, else is
// closed at once; the whole header of a request must come within
// preauth.FirstByteTimeout; a request without the token gets its 401 and
// the connection closed. A browser opens a few connections at once and
// proves itself with its first request.
const (
	MaxUnproved          = 32
	maxUnprovedPerSource = 8
	// idleTimeout bounds a proved browser's keep-alive connection
	// between two requests.
	idleTimeout = time.Minute
)

// newHTTPServer is the dashboard's server of h, its connections counted
// (preauth.HTTPListener) until they prove themselves.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: preauth.FirstByteTimeout, IdleTimeout: idleTimeout,
		ConnContext: preauth.ConnContext, ConnState: preauth.ConnState}
}

// proved records that r came with the token: its connection leaves the
// pool of those not yet proved.
func proved(r *http.Request) { preauth.Proved(r) }
