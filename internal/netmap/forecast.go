package netmap

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// Figure is one kind's forecast for an ordered pair: a bandwidth (bit/s)
// or a latency (ms).
type Figure struct {
	Value      float64   `json:"value"`            // 0: none known
	Error      float64   `json:"error"`            // the expected error, in the value's unit, when ErrorKnown
	Method     string    `json:"method,omitempty"` // the forecaster that made it (basis measured)
	Basis      string    `json:"basis"`            // sensor.BasisMeasured, BasisHierarchy, BasisReverse; "" none
	Via        []string  `json:"via,omitempty"`    // the sensors an estimate goes through
	ErrorKnown bool      `json:"error_known"`      // false for the other direction's figure
	Usable     bool      `json:"usable"`           // a figure known, with its error: one to select by
	MadeAt     time.Time `json:"made_at"`          // when the forecast was made (an estimate: its oldest hop's)
}

// PairFigures is what the mesh's forecasts give for src → dst.
type PairFigures struct {
	Src       string `json:"src"`
	Dst       string `json:"dst"`
	Bandwidth Figure `json:"bandwidth_bps"`
	Latency   Figure `json:"latency_ms"`
}

// Forecasts is the directory's latest forecast of every pair and kind,
// with the live sensors, to answer for any pair (Pair) without asking
// the directory again.
type Forecasts struct {
	direct map[[3]string]directory.Forecast // by src, dst, kind
	m      sensor.Measured
	live   []sensor.Peer
}

// Forecast reads the directory's forecasts and answers for src → dst:
// ReadForecasts then Pair.
func Forecast(ctx context.Context, c *directory.Client, src, dst string) (PairFigures, error) {
	f, err := ReadForecasts(ctx, c)
	if err != nil {
		return PairFigures{}, err
	}
	return f.Pair(src, dst), nil
}

// ReadForecasts reads the sensors and the latest forecast of each pair
// and kind from the directory.
func ReadForecasts(ctx context.Context, c *directory.Client) (*Forecasts, error) {
	ss, err := c.Sensors(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("listing the sensors: %w", err)
	}
	fs, err := c.Forecasts(ctx, directory.Query{Latest: true})
	if err != nil {
		return nil, fmt.Errorf("reading the forecasts: %w", err)
	}
	return NewForecasts(fs, Peers(ss)), nil
}

// NewForecasts indexes forecasts (the latest of each pair and kind) over
// peers (stale ones are no hop of an estimate).
func NewForecasts(fs []directory.Forecast, peers []sensor.Peer) *Forecasts {
	f := &Forecasts{direct: map[[3]string]directory.Forecast{}, m: sensor.Measured{}}
	for _, x := range fs {
		k := [3]string{x.Src, x.Dst, x.Kind}
		if old, ok := f.direct[k]; !ok || x.MadeAt.After(old.MadeAt) {
			f.direct[k] = x
		}
	}
	for k, bw := range f.direct {
		if k[2] != directory.KindBandwidth {
			continue
		}
		l := sensor.Link{BandwidthBps: bw.Value, BandwidthErr: bw.Error, At: bw.MadeAt, ErrorKnown: true}
		if lat, ok := f.direct[[3]string{k[0], k[1], directory.KindLatency}]; ok {
			l.LatencyMs, l.LatencyErr = lat.Value, lat.Error
			l.At = minTime(l.At, lat.MadeAt)
		}
		f.m.Put(k[0], k[1], l)
	}
	f.live = slices.DeleteFunc(slices.Clone(peers), func(p sensor.Peer) bool { return p.Stale })
	return f
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
