package sample

import "testing"

// TestNoReplyIsNotLost checks that a datagram call without a reply is
// named no_reply in every file and report, not "lost", which names the
// samples lost on their way to the controller; files written before the
// rename, whose status column says "lost", still read.
func TestNoReplyIsNotLost(t *testing.T) {
	if got := Lost.String(); got != "no_reply" {
		t.Errorf("a datagram call without a reply is named %q, want no_reply", got)
	}
	for _, name := range []string{"no_reply", "lost"} {
		if st, err := ParseStatus(name); err != nil || st != Lost {
			t.Errorf("ParseStatus(%q) = %v, %v; want the class of a call without a reply", name, st, err)
		}
	}
	for _, st := range Statuses() {
		if got, err := ParseStatus(st.String()); err != nil || got != st {
			t.Errorf("ParseStatus(%q) = %v, %v; want %v", st.String(), got, err, st)
		}
	}
}
