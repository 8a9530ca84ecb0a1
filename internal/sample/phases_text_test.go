package sample

import (
	"fmt"
	"testing"
)

// HTTP phases print as named times in scaled units, not as a Go struct
// of nanoseconds, however they are formatted.
func TestPhasesText(t *testing.T) {
	p := Phases{DNS: 1_200_000, Connect: 300_000, FirstByte: 5_000_000_000}
	want := "DNS 1.2 ms, connect 300 µs, TLS 0 s, first byte 5 s"
	for _, got := range []string{p.String(), fmt.Sprintf("%v", p), fmt.Sprintf("%+v", p)} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
