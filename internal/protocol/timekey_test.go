package protocol

import (
	"bytes"
	"testing"
)

// TestTimeKeyIsSharedAndSecret: the controller's and the tester's sides
// of a session derive the same time key; another id, another session or
// another secret gives another key, and the key is neither direction's
// frame key (an observer of the session, who sees neither, learns nothing
// of it from the TestDesc, which names only the id).
func TestTimeKeyIsSharedAndSecret(t *testing.T) {
	t.Parallel()
	secret := bytes.Repeat([]byte{7}, 32)
	b := testBinding(3)
	ctl, tst := SessionKeys(secret, testShared, RoleController, b), SessionKeys(secret, testShared, RoleTester, b)
	k := ctl.TimeKey(4)
	if len(k) != TimeKeySize || !bytes.Equal(k, tst.TimeKey(4)) {
		t.Fatalf("controller's time key %x, tester's %x: want the same %d bytes", k, tst.TimeKey(4), TimeKeySize)
	}
	o := b
	o.ControllerNonce = bytes.Repeat([]byte{9}, NonceSize)
	other := SessionKeys(secret, testShared, RoleController, o)
	wrong := SessionKeys(bytes.Repeat([]byte{8}, 32), testShared, RoleController, b)
	for name, k2 := range map[string][]byte{"another id": ctl.TimeKey(5), "another session": other.TimeKey(4),
		"another secret": wrong.TimeKey(4), "the frame key to the tester": ctl.Send, "the frame key to the controller": ctl.Recv} {
		if bytes.Equal(k, k2) {
			t.Errorf("the time key equals %s", name)
		}
	}
}
