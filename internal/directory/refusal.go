package directory

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// Refusal is a request the directory refuses with a status other than 400:
// 408 for a body sent too slowly, 403 for a registration past the
// directory's number of sensors, 429 for new names too fast (with the
// time to wait).
type Refusal struct {
	Status     int
	RetryAfter time.Duration // for a 429: when the next one is taken
	FieldError
}

func (e *Refusal) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, http.StatusText(e.Status), e.FieldError.Error())
}

// refusal is a Refusal of status naming field.
func refusal(status int, field, format string, args ...any) *Refusal {
	return &Refusal{Status: status, FieldError: *fieldErr(field, format, args...)}
}

// readError words an error reading a request body: a peer too slow to
// send it (the server's read deadline passed) is a 408, not the
// directory's fault.
func readError(err error) error {
	var ne net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return refusal(http.StatusRequestTimeout, "", "the body came too slowly: not all of it within the server's read timeout")
	}
	return fmt.Errorf("reading the body: %w", err)
}

// writeRefusal answers a Refusal: its status and {"error", "field"}.
func writeRefusal(w http.ResponseWriter, e *Refusal) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10))
	}
	if e.Status == http.StatusRequestTimeout {
		w.Header().Set("Connection", "close") // the rest of the body may still come
	}
	writeJSON(w, e.Status, &e.FieldError)
}
