package sample

import (
	"fmt"

	"github.com/diperf/diperf/internal/human"
)

// String says the phases for a person, each in the time unit that keeps
// it readable: "DNS 1.2 ms, connect 300 µs, TLS 0 s, first byte 5 ms".
func (p Phases) String() string {
	s := func(ns int64) string { return human.Seconds(float64(ns) / 1e9) }
	return fmt.Sprintf("DNS %s, connect %s, TLS %s, first byte %s", s(p.DNS), s(p.Connect), s(p.TLS), s(p.FirstByte))
}
