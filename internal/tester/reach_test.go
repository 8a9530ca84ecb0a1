package tester

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/transport"
)

// TestJoinFollowsReach: a tester attached to its controller without a
// connection, or given a connection yet told to dial, says so and dials
// nothing: Options.Reach alone says which of Conn and Transport is used.
func TestJoinFollowsReach(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Reach: transport.Attached, Controller: "stdio"}, "given no connection"},
		{Options{Reach: transport.Dial, Controller: "ctl:1", Conn: a}, "by dial"},
		{Options{Reach: transport.Join, Controller: "ctl:1", Conn: a}, "by join"},
	} {
		tt.o.Transport = transport.NewMemory() // nothing listens: a dial would fail differently
		tr := &Tester{o: tt.o}
		c, err := tr.join(context.Background())
		if c != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("reach %v, conn %v: %v, %v; want an error saying %q", tt.o.Reach, tt.o.Conn != nil, c, err, tt.want)
		}
	}
}
