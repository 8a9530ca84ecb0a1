package experiment

import (
	"fmt"
	"strconv"

	"github.com/diperf/diperf/internal/human"
	"gopkg.in/yaml.v3"
)

// Percent is a share in percent, read from YAML as "10%" or as a bare
// number (10 means 10%), and written back as "10%".
type Percent float64

// MarshalYAML writes p as "N%".
func (p Percent) MarshalYAML() (any, error) {
	return strconv.FormatFloat(float64(p), 'g', -1, 64) + "%", nil
}

// UnmarshalYAML reads p from "N%" or a number.
func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	v, err := parsePercent(n)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// parsePercent reads a percentage from a scalar: "12.5%" or 12.5.
func parsePercent(n *yaml.Node) (Percent, error) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return 0, fmt.Errorf("want a percentage such as \"10%%\", got %s", describe(n))
	}
	f, err := human.ParsePercent(n.Value)
	return Percent(f), err
}
