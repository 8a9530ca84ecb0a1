package directory

import (
	"errors"
	"net/url"
)

// requestError is a request that got no answer, said once: "GET
// /v1/sensors: dial tcp ...: connection refused", not the path then
// url.Error's own method and URL again. The url.Error stays in the chain
// (errors.As, its Timeout).
type requestError struct {
	method, path string
	err          error
}

func (e *requestError) Error() string {
	var ue *url.Error
	if errors.As(e.err, &ue) {
		return e.method + " " + e.path + ": " + ue.Err.Error()
	}
	return e.method + " " + e.path + ": " + e.err.Error()
}

func (e *requestError) Unwrap() error { return e.err }
