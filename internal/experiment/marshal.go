package experiment

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// Marshal returns e as YAML, every key written out with the defaults filled
// in, in the order of the experiment file. Parse reads it back to e.
func (e *Experiment) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
