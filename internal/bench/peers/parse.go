package peers

import (
	"bytes"
	"errors"
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
