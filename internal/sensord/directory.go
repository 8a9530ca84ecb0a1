package sensord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/forecast"
	"github.com/diperf/diperf/internal/netmap"
	"github.com/diperf/diperf/internal/sensor"
)

// NewDirectory is the directory c as the sensor loop needs it
// (sensor.Directory): the sensors listed as peers, each result written
// with the forecast it leads to, kept while the directory does not
// answer.
func NewDirectory(c *directory.Client) sensor.Directory { return &dirAdapter{c: c} }

// dirAdapter is the directory as the sensor loop needs it: the sensors
// listed as peers, each result written with the forecast it leads to.
// Results the directory does not take (it is down, restarting) are kept,
// up to maxPending, and sent first at the next write.
type dirAdapter struct {
	c       *directory.Client
	mu      sync.Mutex
	fcast   map[string]*forecast.Adaptive // by dst/kind
	pending []directory.Result            // not taken yet, oldest first
	dropped int                           // the oldest, dropped past maxPending
}

// maxPending bounds the results a sensor keeps while the directory does
// not answer: at the default one test per 5 minutes, 10,000 is a month.
const maxPending = 10_000

// Sensors lists the peers; a directory that answers again first gets the
// results kept while it did not.
func (d *dirAdapter) Sensors(ctx context.Context) ([]sensor.Peer, error) {
	ss, err := d.c.Sensors(ctx, "")
	if err != nil {
		return nil, err
	}
	if len(d.pending) > 0 {
		_ = d.flush(ctx) // what it does not take stays kept, for the next write
	}
	return netmap.Peers(ss), nil
}

func (d *dirAdapter) Write(ctx context.Context, r sensor.Result) error {
	dr, value := dirResult(r)
	f, ok := d.forecast(r.Dst+"/"+string(r.Kind), forecast.Measurement{At: r.At, Value: value})
	if err := d.send(ctx, dr); err != nil {
		return err
	}
	return d.addForecast(ctx, r, f, ok)
}

// addForecast writes the forecast f that r led to, if there is one with
// an error to expect.
func (d *dirAdapter) addForecast(ctx context.Context, r sensor.Result, f forecast.Forecast, ok bool) error {
	if !ok || f.Scored == 0 {
		return nil // no forecast yet, or none with an error to expect: the second measurement brings one
	}
	_, err := d.c.AddForecast(ctx, directory.Forecast{Src: r.Src, Dst: r.Dst, Kind: string(r.Kind), Value: f.Value,
		Error: f.Error, Method: f.Method, MadeAt: time.Now()})
	return err
}

// send queues dr behind the results not taken yet and sends them in
// order until the directory refuses one.
func (d *dirAdapter) send(ctx context.Context, dr directory.Result) error {
	d.keep(dr)
	return d.flush(ctx)
}

// keep queues dr behind the results not taken yet, the oldest dropped
// past maxPending.
func (d *dirAdapter) keep(dr directory.Result) {
	d.pending = append(d.pending, dr)
	if over := len(d.pending) - maxPending; over > 0 {
		d.pending = append(d.pending[:0], d.pending[over:]...)
		d.dropped += over
	}
}

// flush sends the results kept, in order, until the directory does not
// answer; one it refuses as invalid is dropped and said.
func (d *dirAdapter) flush(ctx context.Context) error {
	var refused error
	for len(d.pending) > 0 {
		_, err := d.c.AddResult(ctx, d.pending[0])
		var api *directory.APIError
		switch {
		case errors.As(err, &api) && (api.Status == http.StatusBadRequest || api.Status == http.StatusRequestEntityTooLarge):
			// the directory will never take this one: sending it again
			// would hold back every result behind it
			refused = fmt.Errorf("a result the directory refuses, not sent again: %w", err)
		case err != nil:
			return fmt.Errorf("%w (%d results kept to send again; %d dropped, the oldest, past %d)",
				err, len(d.pending), d.dropped, maxPending)
		}
		d.pending = d.pending[1:]
	}
	return refused
}

// dirResult is r as the directory stores it, and the value forecast.
func dirResult(r sensor.Result) (directory.Result, float64) {
	dr := directory.Result{Src: r.Src, Dst: r.Dst, Kind: string(r.Kind), TestTimeS: r.Took.Seconds(), MeasuredAt: r.At,
		Busy: int64(r.Busy), Missed: int64(r.Missed)}
	if r.Kind == sensor.Bandwidth {
		dr.BandwidthBps, dr.BandwidthAfterSlowStartBps = r.BandwidthBps, r.SteadyBps
		if !r.DataStart.IsZero() { // the data's own window: what must never overlap on a host
			dr.MeasuredAt, dr.TestTimeS = r.DataStart, r.DataTime.Seconds()
		}
		return dr, r.BandwidthBps
	}
	dr.LatencyMs, dr.LatencyP50Ms, dr.LatencyP90Ms, dr.LatencyP99Ms = r.LatencyMs, r.P50Ms, r.P90Ms, r.P99Ms
	return dr, r.LatencyMs
}

// forecast feeds the pair's adaptive forecaster and returns its forecast.
func (d *dirAdapter) forecast(key string, m forecast.Measurement) (forecast.Forecast, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fcast == nil {
		d.fcast = map[string]*forecast.Adaptive{}
	}
	a := d.fcast[key]
	if a == nil {
		a = forecast.NewAdaptive(forecast.Defaults()...)
		d.fcast[key] = a
	}
	a.Observe(m)
	return a.Forecast()
}
