package directory

import (
	"cmp"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
)

// refusals counts the requests the directory refused (a 4xx answer to a
// holder of the token), by route and status: both from fixed sets (the
// API's routes, the statuses it answers), so the count of series is
// bounded whatever a client sends.
type refusals struct {
	mu sync.Mutex
	n  map[refusalKey]uint64
}

type refusalKey struct {
	route string // the API's pattern, e.g. "POST /v1/results"; "unmatched" for none
	code  int
}

// counted wraps the API's mux: every 4xx it answers is counted.
func (c *refusals) counted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.code < 400 || sw.code > 499 {
			return
		}
		route := r.Pattern // set by the mux on this request
		if route == "" {
			route = "unmatched"
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.n == nil {
			c.n = map[refusalKey]uint64{}
		}
		c.n[refusalKey{route, sw.code}]++
	})
}

// write writes the counts in the Prometheus text format.
func (c *refusals) write(w io.Writer) {
	f := &metricFamily{name: "diperf_directory_refused_requests_total", typ: "counter",
		help: "Requests the directory refused (4xx) from holders of the token, by route and status."}
	c.mu.Lock()
	keys := slices.SortedFunc(maps.Keys(c.n), func(a, b refusalKey) int {
		return cmp.Or(cmp.Compare(a.route, b.route), cmp.Compare(a.code, b.code))
	})
	for _, k := range keys {
		f.add(`route="`+escapeLabel(k.route)+`",code="`+strconv.Itoa(k.code)+`"`, float64(c.n[k]))
	}
	c.mu.Unlock()
	f.write(w)
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
