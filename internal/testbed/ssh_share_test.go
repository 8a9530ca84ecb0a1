package testbed

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
)

// TestShareTestersNeverOverfills: testers that do not fit on the usable
// hosts at testers_per_host each are refused, never piled onto a host
// (the case: 4 hosts of 2, one skipped, 8 testers gave one host
// 4); the refusal is a usage error when no host was skipped or only for
// the user's own setup, and names the hosts skipped and the way out.
func TestShareTestersNeverOverfills(t *testing.T) {
	three := []string{"a", "b", "c"}
	skipped := map[string]string{"d": "unreachable"}
	_, err := shareTesters(8, 2, three, skipped, false)
	if err == nil {
		t.Fatal("8 testers at 2 per host on 3 hosts: accepted")
	}
	for _, want := range []string{"8 testers at testbed.testers_per_host 2 need 4 hosts, and 3 usable remain (1 skipped: d)",
		"raise testbed.testers_per_host to 3, or lower schedule.testers to 6, or fix the skipped hosts"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q lacks %q", err, want)
		}
	}
	if errs.Code(err) == errs.CodeUsage {
		t.Errorf("an unreachable host is not the experiment's fault: %v is a usage error", err)
	}
	if _, err := shareTesters(8, 2, three, skipped, true); errs.Code(err) != errs.CodeUsage {
		t.Errorf("skipped for the user's setup only: %v, want a usage error", err)
	}
	_, err = shareTesters(7, 2, three, nil, false)
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeUsage || !strings.Contains(e.Hint, "raise testbed.testers_per_host to 3, or lower schedule.testers to 6") {
		t.Errorf("no host skipped, 7 testers on 3 hosts of 2: %v, want a usage error with the way out", err)
	}
}

// TestShareTestersSays: when a host was skipped or is not needed, the
// share of each usable host is said, and it is what HostFor hands out.
func TestShareTestersSays(t *testing.T) {
	hosts := []string{"a", "b", "c"}
	note, err := shareTesters(5, 2, hosts, map[string]string{"x": "full disk"}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "5 testers over 3 usable hosts, at most 2 each (testbed.testers_per_host) (1 skipped: x): a 2, b 2, c 1"
	if note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	r := Ready{Hosts: hosts, PerHost: 2}
	got := map[string]int{}
	for i := range 5 {
		got[r.HostFor(i)]++
	}
	for i, n := range r.Share(5) {
		if got[hosts[i]] != n {
			t.Errorf("HostFor gives %s %d testers, the note says %d", hosts[i], got[hosts[i]], n)
		}
	}
	if note, _ := shareTesters(6, 2, hosts, nil, false); note != "" {
		t.Errorf("every host full, none skipped: note %q, want none", note)
	}
	if note, _ := shareTesters(2, 1, hosts, nil, false); !strings.HasSuffix(note, ": a 1, b 1, c 0") {
		t.Errorf("a host not needed: note %q", note)
	}
	if s := (Ready{Hosts: hosts}).Share(3); !slices.Equal(s, []int{1, 1, 1}) {
		t.Errorf("testers_per_host 0 counts as 1: %v", s)
	}
}
