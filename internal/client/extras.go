package client

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/sample"
)

// MaxExtrasText is the most text a client may report extras in for one
// call (exec: what it writes to fd 3; persistent: its reply line), bytes.
const MaxExtrasText = 4096

// BytesKey is the reserved extra that sets the call's Bytes column
// instead of becoming an extra of its own.
const BytesKey = "bytes"

// maxBytesExtra is the largest bytes= value taken: floats are exact to it.
const maxBytesExtra = 1 << 53

// extrasOf is the result of parsing a client's key=value text.
type extrasOf struct {
	bytes  int64
	extras []sample.Extra
	// dropped says which pairs were not taken, and why ("" = none).
	dropped string
}

// parseExtras reads whitespace-separated key=value pairs: a key as
// sample.ValidExtraKey allows, a finite number as its value (Go/C float
// syntax). A pair that is malformed, repeats a key or exceeds
// sample.MaxExtras is dropped and named in dropped; the others are kept
// in order. bytes= (a whole number 0..2^53) sets bytes; killed_by
// (KilledByKey) is the tester's and dropped.
func parseExtras(s string) extrasOf {
	var r extrasOf
	var bad []string
	seen := map[string]bool{}
	for _, pair := range strings.Fields(s) {
		k, v, err := parsePair(pair)
		switch {
		case err == nil && seen[k]:
			err = fmt.Errorf("%q: key repeated", pair)
		case err == nil && k == KilledByKey:
			err = fmt.Errorf("%q: %s is the tester's own extra", pair, KilledByKey)
		case err == nil && k == BytesKey:
			err = setBytes(&r, pair, v)
		case err == nil && len(r.extras) == sample.MaxExtras:
			err = fmt.Errorf("%q: over %d extras", pair, sample.MaxExtras)
		case err == nil:
			r.extras = append(r.extras, sample.Extra{Key: k, Value: v})
		}
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		seen[k] = true
	}
	if len(bad) > 0 {
		r.dropped = "extras dropped: " + strings.Join(bad, "; ")
	}
	return r
}

func setBytes(r *extrasOf, pair string, v float64) error {
	if v < 0 || v > maxBytesExtra || v != math.Trunc(v) {
		return fmt.Errorf("%q: bytes must be a whole number 0..2^53", pair)
	}
	r.bytes = int64(v)
	return nil
}

// parsePair splits one key=value pair and checks both sides.
func parsePair(pair string) (string, float64, error) {
	k, v, ok := strings.Cut(pair, "=")
	if !ok {
		return "", 0, fmt.Errorf("%q: not key=value", clip(pair))
	}
	if !sample.ValidExtraKey(k) {
		return "", 0, fmt.Errorf("%q: key must be 1..%d of [a-z0-9_], starting with a letter", clip(pair), sample.MaxExtraKey)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", 0, fmt.Errorf("%q: value is not a finite number", clip(pair))
	}
	return k, f, nil
}

// clip shortens text (or bytes) quoted in an error to 40 bytes.
func clip[T string | []byte](s T) string {
	const keep = 40
	if len(s) > keep {
		return string(s[:keep]) + "..."
	}
	return string(s)
}

// withNote appends note to an error text.
func withNote(err, note string) string {
	switch {
	case note == "":
		return err
	case err == "":
		return note
	}
	return err + " (" + note + ")"
}
