package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// verdictWords are the words each saturation verdict of summary.json is
// said in, everywhere (docs/design/003-analysis.md).
var verdictWords = map[string]string{
	"saturated":       "saturated at load",
	"not_saturated":   "not saturated within the tested range (capacity ≥",
	"tester_limited":  "limited by the testers (",
	"too_little_data": "too little data to tell (",
}

// dashVerdict checks that the ended dashboard says the run's saturation
// verdict in the words of its summary.json.
func dashVerdict(t *testing.T, ctx context.Context, out string) {
	t.Helper()
	v := readSummary(t, out).Saturation.Verdict
	words, ok := verdictWords[v]
	if !ok {
		t.Fatalf("summary.json's saturation verdict is %q, not one of the four", v)
	}
	s := dashWait(t, ctx, 20*time.Second, "the saturation verdict", func(s pageState) bool {
		return strings.Contains(s.Ended, "saturation: ")
	})
	if !strings.Contains(s.Ended, "saturation: "+words) {
		t.Errorf("the ended dashboard says %q; want the verdict %s in its words %q", s.Ended, v, words)
	}
}
