package peers

import (
	"bytes"
	"errors"
	"fmt"
	"math"
)

// lastJSONLine is the last line of out that starts with '{'.
func lastJSONLine(out []byte) ([]byte, error) {
	lines := bytes.Split(out, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		l := bytes.TrimSpace(lines[i])
		if len(l) > 0 && l[0] == '{' {
			return l, nil
		}
	}
	return nil, errors.New("no JSON line in the output")
}

// valid checks that a parsed result's figures are finite and not negative.
func valid(r Result) (Result, error) {
	for _, v := range []float64{r.RequestsPerS, r.P50Ms, r.P99Ms} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return Result{}, fmt.Errorf("%s: a figure is not a finite non-negative number: %+v", r.Tool, r)
		}
	}
	if r.Requests < 0 || r.Errors < 0 {
		return Result{}, fmt.Errorf("%s: negative count: %+v", r.Tool, r)
	}
	return r, nil
}
