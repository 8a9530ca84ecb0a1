package experiment

import (
	"fmt"
	"math"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration that reads from YAML as a Go duration string
// ("1.5s", "250ms", "5m") or as a bare number of seconds, and writes back as
// a duration string.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String returns d in time.Duration's format, e.g. "1m30s".
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads d from a duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := parseDuration(n)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// parseDuration reads a scalar node as a duration string or as seconds.
func parseDuration(n *yaml.Node) (Duration, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want a duration, got %s", describe(n))
	}
	bad := fmt.Errorf("invalid duration %q", n.Value)
	switch n.ShortTag() {
	case "!!str":
		v, err := time.ParseDuration(n.Value)
		if err != nil {
			return 0, bad
		}
		return Duration(v), nil
	case "!!int", "!!float":
		var secs float64
		if n.Decode(&secs) != nil {
			return 0, bad
		}
		ns := secs * float64(time.Second)
		if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
			return 0, bad
		}
		return Duration(ns), nil
	}
	return 0, bad
}
