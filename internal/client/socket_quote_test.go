package client

import (
	"strings"
	"testing"
)

// TestMismatchDeepInTheReply: a reply that differs from the expected
// bytes past the first bytes a message shows (a DNS answer's address at
// byte 45) is named by its offset, with the bytes around it on both sides.
func TestMismatchDeepInTheReply(t *testing.T) {
	t.Parallel()
	want := []byte(strings.Repeat("\x85", 48) + "\x07")
	got := []byte(strings.Repeat("\x85", 48) + "\x08")
	msg := (&expect{prefix: want}).badPrefix(got)
	for _, part := range []string{"reply byte 48 differs", `\x07"`, `\x08"`} {
		if !strings.Contains(msg, part) {
			t.Errorf("%q lacks %q", msg, part)
		}
	}
	if len(msg) > 160 {
		t.Errorf("%d bytes: a summary keeps 160", len(msg))
	}
}
