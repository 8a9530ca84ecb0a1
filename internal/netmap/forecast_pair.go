package netmap

import (
	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// Pair answers for src → dst, each kind on its own: the pair's own
// forecast (basis measured) if there is one; else the estimate along the
// hierarchy of forecasts (sensor.Estimate, sensor.Compose: the bottleneck
// bandwidth and the summed latency, with their errors; latency along the
// path of the most bandwidth); else the other direction's forecast
// (basis reverse: shown, error unknown, not Usable); else none (basis
// ""). A pair with its own bandwidth forecast but none of latency has no
// latency figure (the sensors forecast both kinds of each pair they
// test).
func (f *Forecasts) Pair(src, dst string) PairFigures {
	out := PairFigures{Src: src, Dst: dst}
	est, ok := sensor.Estimate(f.m, f.live, src, dst)
	if !ok || est.Basis == sensor.BasisMeasured {
		est = sensor.Link{} // the pair's own forecasts answer below, kind by kind
	}
	out.Bandwidth = f.figure(src, dst, directory.KindBandwidth, est, est.BandwidthBps, est.BandwidthErr)
	out.Latency = f.figure(src, dst, directory.KindLatency, est, est.LatencyMs, est.LatencyErr)
	return out
}

// figure is kind's figure of src → dst: its own forecast, else est's
// value v (error e), else the other direction's forecast.
func (f *Forecasts) figure(src, dst, kind string, est sensor.Link, v, e float64) Figure {
	if x, ok := f.direct[[3]string{src, dst, kind}]; ok {
		return Figure{Value: x.Value, Error: x.Error, Method: x.Method, Basis: sensor.BasisMeasured,
			ErrorKnown: true, Usable: true, MadeAt: x.MadeAt}
	}
	if v > 0 && est.Basis == sensor.BasisHierarchy {
		return Figure{Value: v, Error: e, Basis: est.Basis, Via: est.Via, ErrorKnown: est.ErrorKnown,
			Usable: est.ErrorKnown, MadeAt: est.At}
	}
	if x, ok := f.direct[[3]string{dst, src, kind}]; ok {
		return Figure{Value: x.Value, Basis: sensor.BasisReverse, MadeAt: x.MadeAt}
	}
	if v > 0 { // the hierarchy with a hop known only the other way
		return Figure{Value: v, Basis: sensor.BasisReverse, Via: est.Via, MadeAt: est.At}
	}
	return Figure{}
}
