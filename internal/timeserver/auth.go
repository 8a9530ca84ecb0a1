package timeserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding"
	"hash"
	"sync"
)

// KeySize is the size of a time key's secret.
const KeySize = 32

// Key is a time key. The controller makes one for each tester it admits,
// registers it with its own time server (Server.AddKey) and hands it to
// the tester on their authenticated session; the tester's requests carry
// its ID and a MAC made with Secret, and the server's responses a MAC
// bound to the request they answer, so that nobody on the path can forge
// or alter either (docs/design/002-time.md):
//
//	request MAC  = HMAC-SHA256(secret, request[0:32])[:16]
//	response MAC = HMAC-SHA256(secret, response[0:32] || request MAC)[:16]
type Key struct {
	ID     uint32 // names the key in requests; not secret; 0 is no key
	Secret [KeySize]byte
}

// NewKey returns a key named id with a random secret.
func NewKey(id uint32) Key {
	k := Key{ID: id}
	_, _ = rand.Read(k.Secret[:]) // never fails (crypto/rand)
	return k
}

// keyState is a key made ready for HMAC-SHA256: the hash states after the
// inner and the outer padded key, so that a MAC of a short message costs
// two SHA-256 blocks, not four.
type keyState struct{ inner, outer []byte }

func newKeyState(secret []byte) *keyState {
	var ipad, opad [sha256.BlockSize]byte
	copy(ipad[:], secret) // a secret of at most a block is used as it is
	copy(opad[:], secret)
	for i := range ipad {
		ipad[i] ^= 0x36
		opad[i] ^= 0x5c
	}
	return &keyState{inner: hashState(ipad[:]), outer: hashState(opad[:])}
}

// hashState is the marshaled state of SHA-256 after block.
func hashState(block []byte) []byte {
	h := sha256.New()
	h.Write(block)
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("timeserver: SHA-256 state cannot be saved: " + err.Error())
	}
	return b
}

// macer computes MACs with prepared keys, without allocating. It is not
// safe for concurrent use: each goroutine that serves or probes has one.
type macer struct {
	h   hash.Hash
	u   encoding.BinaryUnmarshaler
	sum [sha256.Size]byte
}

func newMacer() *macer {
	h := sha256.New()
	return &macer{h: h, u: h.(encoding.BinaryUnmarshaler)}
}

// mac returns HMAC-SHA256(key, msg) truncated to MACSize; the result is
// valid until the next call.
func (m *macer) mac(k *keyState, msg []byte) []byte {
	_ = m.u.UnmarshalBinary(k.inner) // a state hashState made: cannot fail
	m.h.Write(msg)
	inner := m.h.Sum(m.sum[:0])
	_ = m.u.UnmarshalBinary(k.outer)
	m.h.Write(inner)
	return m.h.Sum(m.sum[:0])[:MACSize]
}

// sealRequest sets the MAC of request p (MessageSize bytes).
func (m *macer) sealRequest(k *keyState, p []byte) { copy(p[macAt:], m.mac(k, p[:macAt])) }

// requestAuthentic reports whether request p's MAC is k's.
func (m *macer) requestAuthentic(k *keyState, p []byte) bool {
	return hmac.Equal(m.mac(k, p[:macAt]), p[macAt:MessageSize])
}

// sealResponse sets the MAC of response p (MessageSize bytes) written by
// putResponse, whose MAC field holds the request's MAC until then.
func (m *macer) sealResponse(k *keyState, p []byte) { copy(p[macAt:], m.mac(k, p[:MessageSize])) }

// responseAuthentic reports whether response p carries k's MAC bound to
// the request whose MAC is reqMAC. buf is scratch of MessageSize bytes.
func (m *macer) responseAuthentic(k *keyState, p, reqMAC, buf []byte) bool {
	copy(buf, p[:macAt])
	copy(buf[macAt:], reqMAC)
	return hmac.Equal(m.mac(k, buf[:MessageSize]), p[macAt:MessageSize])
}

// keyring holds the keys a Server accepts, by id.
type keyring struct {
	mu   sync.RWMutex
	keys map[uint32]*keyState
}

func (r *keyring) add(k Key) {
	ks := newKeyState(k.Secret[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys == nil {
		r.keys = map[uint32]*keyState{}
	}
	r.keys[k.ID] = ks
}

func (r *keyring) remove(id uint32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.keys, id)
}

// get returns the key named id, or nil.
func (r *keyring) get(id uint32) *keyState {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.keys[id]
}

// len returns the number of keys.
func (r *keyring) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.keys)
}
