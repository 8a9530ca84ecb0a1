package protocol

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// memConn is a net.Conn that reads from r and writes to w.
type memConn struct {
	r io.Reader
	w bytes.Buffer
}

func (m *memConn) Read(p []byte) (int, error)       { return m.r.Read(p) }
func (m *memConn) Write(p []byte) (int, error)      { return m.w.Write(p) }
func (m *memConn) Close() error                     { return nil }
func (m *memConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (m *memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }
func newMemConn(in []byte) *memConn                 { return &memConn{r: bytes.NewReader(in)} }
func testBinding(slot int) Binding {
	return Binding{Proto: Version, Slot: slot, ID: "h:1", TesterNonce: bytes.Repeat([]byte{1}, NonceSize), ControllerNonce: bytes.Repeat([]byte{2}, NonceSize),
		TesterKex: bytes.Repeat([]byte{3}, KexSize), ControllerKex: bytes.Repeat([]byte{4}, KexSize), Run: "r"}
}
func keysOf(role string, b Binding) Keys { return SessionKeys([]byte("s3cret"), testShared, role, b) }

// testShared stands for the key exchange's shared secret in tests of
// secured frames.
var testShared = bytes.Repeat([]byte{5}, 32)

// sealed returns the wire bytes of frames sent by role on a session of
// binding b, one slice per frame.
func sealed(t *testing.T, role string, b Binding, payloads ...string) [][]byte {
	t.Helper()
	m := newMemConn(nil)
	c := NewConn(m)
	c.Secure(keysOf(role, b))
	var out [][]byte
	for _, p := range payloads {
		if err := c.WriteJSON(TypeStop, p); err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Clone(m.w.Bytes()))
		m.w.Reset()
	}
	return out
}

// readAll reads frames from wire as the peer of role until an error.
func readAll(role string, b Binding, wire ...[]byte) (got []string, err error) {
	c := NewConn(newMemConn(bytes.Join(wire, nil)))
	c.Secure(keysOf(role, b))
	for {
		var s string
		if err := c.Expect(TypeStop, &s); err != nil {
			return got, err
		}
		got = append(got, s)
	}
}

// TestSecureFrames sends three frames from the controller and has the
// tester read them as a relay on the path would have them arrive.
func TestSecureFrames(t *testing.T) {
	t.Parallel()
	b := testBinding(3)
	f := sealed(t, RoleController, b, "zero", "one", "two")
	forged := bytes.Clone(f[1])
	forged[len(forged)-MACSize-2] ^= 1 // one payload bit
	injected := bytes.Clone(f[0])
	copy(injected[len(injected)-MACSize:], bytes.Repeat([]byte{7}, MACSize))
	short := []byte{0, 0, 0, 4, byte(TypeStop), 0, 0, 0, 0}
	other := sealed(t, RoleController, testBinding(4), "zero")
	reflected := sealed(t, RoleTester, b, "zero")
	tests := []struct {
		name string
		wire [][]byte
		got  int    // frames read before the error
		want error  // the error that ends it
		text string // in its message
	}{
		{"in order", f, 3, io.EOF, ""},
		{"dropped", [][]byte{f[0], f[2]}, 1, ErrSequence, "frame 2 arrived where 1 was expected: dropped, replayed or reordered"},
		{"reordered", [][]byte{f[1], f[0]}, 0, ErrSequence, "frame 1 arrived where 0 was expected"},
		{"replayed", [][]byte{f[0], f[0], f[1]}, 1, ErrSequence, "frame 0 arrived where 1 was expected"},
		{"altered", [][]byte{f[0], forged, f[2]}, 1, ErrBadMAC, "bad MAC: forged or altered"},
		{"injected, then genuine frames: nothing after", [][]byte{injected, f[0], f[1]}, 0, ErrBadMAC, "bad MAC"},
		{"too short for a MAC", [][]byte{short, f[0]}, 0, ErrBadMAC, "too short"},
		{"from another session (slot 4)", other, 0, ErrBadMAC, "bad MAC"},
		{"reflected: the tester's own frame sent back", reflected, 0, ErrBadMAC, "bad MAC"},
		{"a plain frame", [][]byte{plainFrame(TypeStop, []byte(`"x"`))}, 0, ErrBadMAC, ""},
	}
	for _, tt := range tests {
		got, err := readAll(RoleTester, b, tt.wire...)
		if len(got) != tt.got || !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: read %q then %v; want %d frames then %v with %q", tt.name, got, err, tt.got, tt.want, tt.text)
		}
	}
}

func plainFrame(t Type, p []byte) []byte {
	var b bytes.Buffer
	_ = WriteFrame(&b, t, p)
	return b.Bytes()
}

// TestErrorsStick checks that once a frame is refused no later frame is
// ever returned, even a genuine one.
func TestErrorsStick(t *testing.T) {
	t.Parallel()
	b := testBinding(0)
	f := sealed(t, RoleTester, b, "zero", "one")
	c := NewConn(newMemConn(bytes.Join([][]byte{f[1], f[0], f[1]}, nil)))
	c.Secure(keysOf(RoleController, b))
	for i := range 3 {
		if _, _, err := c.Read(); !errors.Is(err, ErrSequence) {
			t.Fatalf("read %d: %v, want the first refusal again", i, err)
		}
	}
}

// TestHandshakeFrameLimit checks that before Secure a frame over
// MaxHandshakeFrame is refused from its header, and after it one of
// MaxFrame bytes is read.
func TestHandshakeFrameLimit(t *testing.T) {
	t.Parallel()
	var hdr [5]byte
	binary.BigEndian.PutUint32(hdr[:4], 1<<20)
	hdr[4] = byte(TypeHello)
	if _, _, err := NewConn(newMemConn(hdr[:])).Read(); !errors.Is(err, ErrFrameTooLarge) || !strings.Contains(err.Error(), "limit 4096") {
		t.Errorf("a 1 MiB hello: %v, want ErrFrameTooLarge under the 4096 bytes limit", err)
	}
	b := testBinding(0)
	m := newMemConn(nil)
	w := NewConn(m)
	w.Secure(keysOf(RoleTester, b))
	if err := w.Write(TypeSamples, make([]byte, MaxFrame)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(TypeSamples, make([]byte, MaxFrame+1)); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("writing MaxFrame+1: %v", err)
	}
	r := NewConn(newMemConn(m.w.Bytes()))
	r.Secure(keysOf(RoleController, b))
	if typ, p, err := r.Read(); err != nil || typ != TypeSamples || len(p) != MaxFrame {
		t.Errorf("a secured frame of MaxFrame bytes: %v, %d bytes, %v", typ, len(p), err)
	}
}

// TestBinding checks that proofs and keys are bound to every part of the
// handshake: change any one and the proof fails, the keys differ.
func TestBinding(t *testing.T) {
	t.Parallel()
	secret, b := []byte("s3cret"), testBinding(3)
	p := Proof(secret, RoleTester, b)
	k := SessionKeys(secret, testShared, RoleController, b)
	kt := SessionKeys(secret, testShared, RoleTester, b)
	if !bytes.Equal(k.Send, kt.Recv) || !bytes.Equal(k.Recv, kt.Send) || bytes.Equal(k.Send, k.Recv) {
		t.Fatal("the two sides' keys do not pair up, or both directions share a key")
	}
	for name, change := range map[string]func(*Binding){
		"slot":             func(b *Binding) { b.Slot = 4 },
		"tester id":        func(b *Binding) { b.ID = "h:2" },
		"protocol version": func(b *Binding) { b.Proto = 2 },
		"tester nonce":     func(b *Binding) { b.TesterNonce = bytes.Repeat([]byte{9}, NonceSize) },
		"controller nonce": func(b *Binding) { b.ControllerNonce = bytes.Repeat([]byte{9}, NonceSize) },
		"id into nonce":    func(b *Binding) { b.ID, b.TesterNonce = "h:1"+string(b.TesterNonce[:1]), b.TesterNonce[1:] },
		"tester share":     func(b *Binding) { b.TesterKex = bytes.Repeat([]byte{9}, KexSize) },
		"controller share": func(b *Binding) { b.ControllerKex = bytes.Repeat([]byte{9}, KexSize) },
		"run":              func(b *Binding) { b.Run = "other" },
	} {
		o := b
		change(&o)
		if CheckProof(secret, RoleTester, o, p) {
			t.Errorf("a proof for another %s accepted", name)
		}
		if bytes.Equal(SessionKeys(secret, testShared, RoleController, o).Send, k.Send) {
			t.Errorf("another %s gives the same session key", name)
		}
	}
	if CheckProof(secret, RoleTester, Binding{Slot: 3, ID: "h:1"}, Proof(secret, RoleTester, Binding{Slot: 3, ID: "h:1"})) {
		t.Error("a proof without nonces accepted")
	}
	if bytes.Equal(SessionKeys(secret, bytes.Repeat([]byte{6}, 32), RoleController, b).Send, k.Send) {
		t.Error("another key exchange gives the same session key: the secret alone would make the keys")
	}
}

// FuzzSecureRead feeds arbitrary bytes to a secured connection: it never
// panics, and a frame it returns is one the peer's key sealed, at the
// sequence number it expected.
func FuzzSecureRead(f *testing.F) {
	b := testBinding(1)
	var seeds [][]byte
	m := newMemConn(nil)
	w := NewConn(m)
	w.Secure(keysOf(RoleTester, b))
	_ = w.WriteJSON(TypeDone, Done{Produced: 3})
	_ = w.Write(TypeSamples, AppendBatch(nil, &Batch{}))
	seeds = append(seeds, m.w.Bytes(), []byte{0, 0, 0, 0, 1}, plainFrame(TypeHello, []byte("{}")))
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		r := NewConn(newMemConn(p))
		r.Secure(keysOf(RoleController, b))
		ref := NewConn(newMemConn(nil))
		ref.Secure(keysOf(RoleTester, b))
		var sealed []byte
		for {
			typ, payload, err := r.Read()
			if err != nil {
				return
			}
			sealed = ref.wsec.seal(sealed[:0], typ, payload) // what the genuine peer would send next
			if !bytes.Contains(p, sealed) {
				t.Fatalf("accepted a %s frame the peer never sealed", typ)
			}
		}
	})
}

// FuzzHandshake decodes the handshake messages as a controller and a
// tester receive them: none of them ever checks as a proof without the
// secret.
func FuzzHandshake(f *testing.F) {
	f.Add([]byte(`{"proto":9,"slot":1,"id":"h:1","nonce":"AQID","kex":"AQID"}`), []byte(`{"proof":"AQID","nonce":"AQID","sig":"AQID"}`))
	f.Add([]byte(`{"proto":9,"slot":-1,"id":""}`), []byte(`{"proof":null}`))
	pub, _, _ := ed25519.GenerateKey(nil)
	f.Fuzz(func(t *testing.T, hello, answer []byte) {
		var h Hello
		var ch Challenge
		var a Auth
		var w Welcome
		if DecodeJSON(TypeHello, hello, &h) != nil {
			return
		}
		_ = DecodeJSON(TypeChallenge, answer, &ch)
		_ = DecodeJSON(TypeAuth, answer, &a)
		_ = DecodeJSON(TypeWelcome, answer, &w)
		b := BindingOf(h, Challenge{Nonce: NewNonce(), Kex: NewKex().PublicKey().Bytes(), Run: "r"})
		if CheckProof([]byte("s3cret"), RoleTester, b, a.Proof) || CheckController(pub, BindingOf(h, ch), w.Sig) {
			t.Fatal("a proof made without the secret or the key was accepted")
		}
	})
}
