package sensord

import (
	"testing"

	"github.com/diperf/diperf/internal/sensor"
)

// The sensor's log says the bytes it spends in the unit that keeps them
// readable.
func TestSensorSpentText(t *testing.T) {
	got := spentText(sensor.Stats{Fraction: 0.0123, BytesPerHour: 1.5e9})
	if want := "spent 1.23% of the time testing, 1.5 GB an hour"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
