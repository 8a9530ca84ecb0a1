package tree

import (
	"strings"
	"testing"
)

// TestReadScalingNonFinite: NaN or an infinity in the scaling CSV is
// refused, naming the line, so that none reaches the SVG.
func TestReadScalingNonFinite(t *testing.T) {
	for _, row := range []string{"tcp,NaN,5,measured", "tcp,10,NaN,measured", "tcp,Inf,5,measured", "tcp,10,+Inf,measured", "tcp,10,1e400,measured"} {
		_, err := ReadScaling(strings.NewReader("transport,testers,samples_per_s,source\ntcp,10,1000,measured\n" + row + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 3: testers and samples_per_s must be positive finite numbers") {
			t.Errorf("%q: %v", row, err)
		}
	}
}
