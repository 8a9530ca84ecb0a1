package cli

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/netprobe"
)

// The directory refuses a test time above MaxTestTimeS: twice the longest
// test the protocol serves, so no honest sensor's result is refused.
func TestDirectoryBoundsFollowTheProtocol(t *testing.T) {
	if want := 2 * netprobe.MaxTestTime.Seconds(); directory.MaxTestTimeS != want {
		t.Errorf("directory.MaxTestTimeS = %v s, want twice netprobe.MaxTestTime (%v s)", directory.MaxTestTimeS, want)
	}
	if directory.MaxTestTimeS*float64(time.Second) <= float64(netprobe.MaxTestTime+netprobe.AnswerTime(netprobe.MaxTestTime)) {
		t.Error("the directory's bound leaves no room for the connection and handshake")
	}
}
