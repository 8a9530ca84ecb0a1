package directory

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// FieldError is a request the directory refuses (HTTP 400), naming the
// JSON field at fault.
type FieldError struct {
	Field string `json:"field"`
	Msg   string `json:"error"`
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// checkToken checks a name-like string: 1..max bytes of UTF-8 with no
// space or control character.
func checkToken(field, s string, max int) error {
	if s == "" {
		return fieldErr(field, "is missing")
	}
	if len(s) > max {
		return fieldErr(field, "is %d bytes long; at most %d", len(s), max)
	}
	if !utf8.ValidString(s) {
		return fieldErr(field, "is not valid UTF-8")
	}
	return checkRunes(field, s)
}

func checkList(field string, l []string, max int) error {
	if len(l) > MaxList {
		return fieldErr(field, "has %d entries; at most %d", len(l), MaxList)
	}
	for i, s := range l {
		if err := checkToken(fmt.Sprintf("%s[%d]", field, i), s, max); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks a registration against the directory's limits.
func (r *Registration) Validate() error {
	if err := checkToken("name", r.Name, MaxName); err != nil {
		return err
	}
	if err := checkToken("address", r.Address, MaxAddress); err != nil {
		return err
	}
	if err := checkToken("version", r.Version, MaxShort); err != nil {
		return err
	}
	if len(r.Groups) == 0 {
		return fieldErr("groups", "is empty; a sensor is at least in its site's \"local\" group")
	}
	if err := checkList("groups", r.Groups, MaxShort); err != nil {
		return err
	}
	if err := checkList("capabilities", r.Capabilities, MaxShort); err != nil {
		return err
	}
	if r.TTLSeconds < 0 || math.IsNaN(r.TTLSeconds) || r.TTLSeconds > 86400 {
		return fieldErr("ttl_s", "must be between 0 (the default) and 86400")
	}
	return r.checkSize()
}

func checkPair(src, dst, kind string) error {
	if err := checkToken("src", src, MaxName); err != nil {
		return err
	}
	if err := checkToken("dst", dst, MaxName); err != nil {
		return err
	}
	if src == dst {
		return fieldErr("dst", "is the same sensor as src")
	}
	if kind != KindBandwidth && kind != KindLatency {
		return fieldErr("kind", "is %q; want %q or %q", clip(kind), KindBandwidth, KindLatency)
	}
	return nil
}

// nonNeg checks figures: each finite and >= 0.
func nonNeg(fields []string, vals ...float64) error {
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fieldErr(fields[i], "must be a finite number >= 0")
		}
	}
	return nil
}

// Validate checks a result: the pair, the kind and the figures its kind needs.
func (r *Result) Validate() error {
	if err := checkPair(r.Src, r.Dst, r.Kind); err != nil {
		return err
	}
	names := []string{"bandwidth_bps", "bandwidth_after_slow_start_bps", "latency_ms", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "test_time_s"}
	if err := nonNeg(names, r.BandwidthBps, r.BandwidthAfterSlowStartBps, r.LatencyMs, r.LatencyP50Ms, r.LatencyP90Ms, r.LatencyP99Ms, r.TestTimeS); err != nil {
		return err
	}
	if r.Busy < 0 || r.Missed < 0 {
		return fieldErr("busy", "busy and missed must be >= 0")
	}
	if err := r.checkFigures(); err != nil {
		return err
	}
	if err := checkTime("measured_at", r.MeasuredAt); err != nil {
		return err
	}
	if r.TestTimeS == 0 {
		return fieldErr("test_time_s", "must be > 0")
	}
	if r.Kind == KindBandwidth {
		if r.BandwidthBps == 0 {
			return fieldErr("bandwidth_bps", "must be > 0 in a bandwidth result")
		}
		return nil
	}
	if r.LatencyP50Ms == 0 {
		return fieldErr("latency_p50_ms", "must be > 0 in a latency result")
	}
	if r.LatencyP90Ms < r.LatencyP50Ms || r.LatencyP99Ms < r.LatencyP90Ms {
		return fieldErr("latency_p99_ms", "quantiles must not decrease: p50 <= p90 <= p99")
	}
	return nil
}

// Validate checks a forecast.
func (f *Forecast) Validate() error {
	if err := checkPair(f.Src, f.Dst, f.Kind); err != nil {
		return err
	}
	if err := f.checkFigures(); err != nil {
		return err
	}
	if err := checkToken("method", f.Method, MaxShort); err != nil {
		return err
	}
	return checkTime("made_at", f.MadeAt)
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
