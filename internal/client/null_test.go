package client

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// TestNull builds the null client from its wire description and checks
// that every call is OK at once with no bytes and no allocation, and that
// the description refuses settings the kind does not take.
// Not parallel: testing.AllocsPerRun refuses to run in a parallel test.
func TestNull(t *testing.T) {
	c, err := New(Spec{Desc: protocol.ClientDesc{Kind: protocol.ClientNull}, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if r := c.Call(ctx); !reflect.DeepEqual(r, Reply{Status: sample.OK}) {
		t.Errorf("Call = %+v, want OK with no bytes and no error", r)
	}
	if allocs := testing.AllocsPerRun(100, func() { c.Call(ctx) }); allocs != 0 {
		t.Errorf("a call allocates %v times, want 0", allocs)
	}
	for _, d := range []protocol.ClientDesc{
		{Kind: protocol.ClientNull, Argv: []string{"true"}},
		{Kind: protocol.ClientNull, Env: []string{"A=1"}},
	} {
		if _, err := New(Spec{Desc: d, Timeout: time.Second}); err == nil || !strings.Contains(err.Error(), "null client takes no") {
			t.Errorf("New(%+v): err = %v, want the null client refusing settings", d, err)
		}
	}
}
