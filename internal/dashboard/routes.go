package dashboard

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/diperf/diperf/internal/webui"
)

func (s *Server) routes() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(s.run, s.hub.count))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /assets/{name}", asset)
	mux.HandleFunc("GET /api/snapshot", s.snapshot)
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /report", s.report)
	mux.HandleFunc("GET /api/verdict", s.verdict)
	mux.HandleFunc("GET /api/search", s.searchAPI)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return s.auth(mux)
}

// auth lets through requests that carry the token: ?token= (the page
// adds it to its own requests) or Authorization: Bearer. A cookie is
// neither set nor read: a browser would send it to every port of the
// host.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.URL.Query().Get("token")
		if h := r.Header.Get("Authorization"); got == "" && strings.HasPrefix(h, "Bearer ") {
			got = strings.TrimPrefix(h, "Bearer ")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			w.Header().Set("Connection", "close") // one request a connection for who has no token
			w.Header().Set("WWW-Authenticate", `Bearer realm="diperf"`)
			http.Error(w, "diperf dashboard: this run's token is required (open the URL diperf run printed)", http.StatusUnauthorized)
			return
		}
		proved(r)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer") // the page's URL holds the token
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
		next.ServeHTTP(w, r)
	})
}

// index serves the page.
func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(s.page)
}

// asset serves the page's scripts and styles.
func asset(w http.ResponseWriter, r *http.Request) {
	var b []byte
	ctype := "text/javascript; charset=utf-8"
	switch r.PathValue("name") {
	case "uPlot.js":
		b = webui.UPlotJS()
	case "uPlot.css":
		b, ctype = webui.UPlotCSS(), "text/css; charset=utf-8"
	case "uPlot.LICENSE.txt":
		b, ctype = webui.UPlotLicense(), "text/plain; charset=utf-8"
	case "charts.js":
		b = webui.ChartsJS()
	case "charts.css":
		b, ctype = webui.ChartsCSS(), "text/css; charset=utf-8"
	case "dashboard.js":
		b = dashboardJS
	case "dashboard.css":
		b, ctype = dashboardCSS, "text/css; charset=utf-8"
	case "search.js":
		b = searchJS
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write(b)
}

// snapshot answers the run's whole state as JSON.
func (s *Server) snapshot(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(s.run.Snapshot(0))
}

// report serves the run's report.html once it is written.
func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	if s.o.Report == "" {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(s.o.Report)
	if err != nil {
		http.Error(w, "the report is not written yet: it is drawn when the run ends", http.StatusNotFound)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:")
	http.ServeContent(w, r, "report.html", time.Time{}, f)
}
