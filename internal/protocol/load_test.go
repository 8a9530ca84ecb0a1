package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLoadStepBounds: a load step is taken only within what is possible
// for the tester that gets it: a positive Seq and instant, a rate of 0 to
// MaxRate calls/s, no more active clients than it has, and a frame of at
// most MaxLoadFrame bytes of JSON.
func TestLoadStepBounds(t *testing.T) {
	t.Parallel()
	ok := LoadStep{Seq: 1, AtNs: 1e18, Rate: 50, Active: 4}
	b, _ := json.Marshal(ok)
	if got, err := DecodeLoadStep(b, 4); err != nil || got != ok {
		t.Fatalf("a good step: %+v, %v", got, err)
	}
	if TypeLoad.String() != "load" || TypeLoad != TypeHealth+1 {
		t.Errorf("TypeLoad is %d %q: must follow TypeHealth, named load", TypeLoad, TypeLoad)
	}
	for name, p := range map[string]string{
		"seq 0":           `{"seq":0,"at_ns":1,"rate":1}`,
		"no instant":      `{"seq":1,"at_ns":0,"rate":1}`,
		"negative rate":   `{"seq":1,"at_ns":1,"rate":-1}`,
		"rate too high":   `{"seq":1,"at_ns":1,"rate":10000001}`,
		"rate infinite":   `{"seq":1,"at_ns":1,"rate":1e400}`,
		"too many":        `{"seq":1,"at_ns":1,"active":5}`,
		"active negative": `{"seq":1,"at_ns":1,"active":-1}`,
		"not json":        `{"seq":1,`,
		"two objects":     `{"seq":1,"at_ns":1}{"seq":2}`,
		"too long":        `{"seq":1,"at_ns":1,"x":"` + strings.Repeat("a", MaxLoadFrame) + `"}`,
	} {
		if s, err := DecodeLoadStep([]byte(p), 4); err == nil {
			t.Errorf("%s: %s taken as %+v", name, p, s)
		}
	}
}
