// Package directory is the sensor mesh's directory service (Gloperf's MDS):
// sensors register and renew a lease, find their peers by group, write
// their bandwidth and latency results and read them back, and forecasts are
// stored beside them. It is an HTTP/JSON API over an embedded SQLite
// database (WAL), authenticated by a bearer token; this package holds the
// server, its store, the Prometheus exposition and the Go client.
package directory

import "time"

// Kinds of result.
const (
	KindBandwidth = "bandwidth"
	KindLatency   = "latency"
)

// States of a registered sensor.
const (
	StateLive  = "live"  // its lease has not run out
	StateStale = "stale" // it stopped renewing; kept, never deleted
)

// Registration is what a sensor sends to register (POST /v1/sensors).
type Registration struct {
	Name         string   `json:"name"`           // the sensor's host name (diperf sensor --name)
	Address      string   `json:"address"`        // host:port its tests are reached at
	Groups       []string `json:"groups"`         // e.g. ["local"], ["local", "global"]
	Version      string   `json:"version"`        // peers test only with compatible versions
	Capabilities []string `json:"capabilities"`   // e.g. ["bandwidth", "latency"]
	TTLSeconds   float64  `json:"ttl_s,omitzero"` // the lease asked for; 0 = the directory's default
}

// Lease is the directory's answer to a registration or a renewal.
type Lease struct {
	Name        string    `json:"name"`
	TTLSeconds  float64   `json:"ttl_s"`         // the lease granted
	RenewAfterS float64   `json:"renew_after_s"` // renew by then (a third of the lease)
	ExpiresAt   time.Time `json:"expires_at"`    // stale from then on without a renewal
}

// Sensor is a registered sensor as listed (GET /v1/sensors).
type Sensor struct {
	Registration
	State        string    `json:"state"` // StateLive or StateStale
	RegisteredAt time.Time `json:"registered_at"`
	RenewedAt    time.Time `json:"renewed_at"`
	ExpiresAt    time.Time `json:"expires_at"`
}

// Result is one test from Src to Dst (POST and GET /v1/results). A
// bandwidth result carries BandwidthBps (the whole test) and
// BandwidthAfterSlowStartBps; a latency result carries LatencyMs (1 /
// transactions per second) and the p50/p90/p99 of its request/response
// transactions. Busy and Missed are the source
// sensor's counters of tests refused as busy and tests missed, so far.
type Result struct {
	ID                         int64     `json:"id,omitzero"` // set by the directory
	Src                        string    `json:"src"`
	Dst                        string    `json:"dst"`
	Kind                       string    `json:"kind"`
	BandwidthBps               float64   `json:"bandwidth_bps,omitzero"`
	BandwidthAfterSlowStartBps float64   `json:"bandwidth_after_slow_start_bps,omitzero"`
	LatencyMs                  float64   `json:"latency_ms,omitzero"` // 1 / transactions per second (netperf TCP_RR)
	LatencyP50Ms               float64   `json:"latency_p50_ms,omitzero"`
	LatencyP90Ms               float64   `json:"latency_p90_ms,omitzero"`
	LatencyP99Ms               float64   `json:"latency_p99_ms,omitzero"`
	TestTimeS                  float64   `json:"test_time_s"`
	MeasuredAt                 time.Time `json:"measured_at"`
	Busy                       int64     `json:"busy"`
	Missed                     int64     `json:"missed"`
	// MedianOf is, for a row downsampled by the retention policy, how
	// many results it is the median of (0: a result as written).
	MedianOf int64 `json:"median_of,omitzero"`
}

// Forecast is a prediction for a pair and kind (POST and GET
// /v1/forecasts): the value (bits/s or ms), its expected error, the method
// that made it, and when.
type Forecast struct {
	ID     int64     `json:"id,omitzero"`
	Src    string    `json:"src"`
	Dst    string    `json:"dst"`
	Kind   string    `json:"kind"`
	Value  float64   `json:"value"`
	Error  float64   `json:"error"`
	Method string    `json:"method"`
	MadeAt time.Time `json:"made_at"`
}

// Query selects results or forecasts; empty fields match everything.
type Query struct {
	Src, Dst, Kind string
	Since, Until   time.Time // measured_at (made_at) in [Since, Until]; zero = open
	Latest         bool      // only the newest per (src, dst, kind)
	Limit          int       // at most this many (a page), newest first; 0 = DefaultLimit (the client: every row)
	Cursor         string    // where the page starts: the cursor a previous page ended with (paging.go)
}

// Limits on what the directory accepts.
const (
	MaxBody      = 64 << 10 // bytes of a request body
	MaxName      = 253      // a host name
	MaxAddress   = 300      // host:port
	MaxShort     = 64       // a group, version, capability or method
	MaxList      = 32       // groups or capabilities
	DefaultLimit = 1000     // rows of a query
	MaxLimit     = 100000   // rows of a query at most
)
