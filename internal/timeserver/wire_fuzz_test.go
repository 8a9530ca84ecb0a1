package timeserver

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"testing"
)

// FuzzTimeserverMessage feeds arbitrary bytes to the request and response
// decoders and to the server's authentication: none panics, what a
// decoder accepts is exactly what its encoder writes for the values
// decoded (a request may carry trailing bytes, which the server ignores),
// and a request is taken as authentic only if its MAC is the key's
// HMAC-SHA256 of its first 32 bytes.
func FuzzTimeserverMessage(f *testing.F) {
	key := Key{ID: 7, Secret: [KeySize]byte{1, 2, 3}}
	f.Add(AppendRequest(nil, 42))
	f.Add(AppendRequest(nil, -1))
	f.Add(authRequest(key, 42))
	f.Add(response(1, 2, 3, nil))
	f.Add([]byte("DPTS\x02\x01\x00\x00"))
	f.Add([]byte{})
	f.Add(append(AppendRequest(nil, 7), 0xff))
	s := New(Config{})
	s.AddKey(key)
	m := newMacer()
	f.Fuzz(func(t *testing.T, p []byte) {
		if r, ok := parseRequest(p); ok {
			fuzzRequest(t, s, m, key, p, r)
		}
		t1, t2, t3, err := ParseResponse(p)
		if err != nil {
			return
		}
		want := make([]byte, ResponseSize)
		putResponse(want, p, request{t1: t1, auth: p[5] == kindAuthResponse}, t2)
		putT3(want, t3)
		if !bytes.Equal(p, want) {
			t.Errorf("response %x accepted as %d, %d, %d, which encode as %x", p, t1, t2, t3, want)
		}
	})
}

// fuzzRequest checks a request parseRequest accepted as r.
func fuzzRequest(t *testing.T, s *Server, m *macer, key Key, p []byte, r request) {
	want, n := AppendRequest(nil, r.t1), headerSize+8 // the rest is padding
	if r.auth {
		want, n = authRequest(Key{ID: r.keyID}, r.t1), keyIDAt+8
	}
	if !bytes.Equal(p[:n], want[:n]) {
		t.Errorf("request %x accepted as %+v, which encodes as %x", p, r, want)
	}
	k, ok := s.authenticate(m, p, r)
	mac := hmac.New(sha256.New, key.Secret[:])
	mac.Write(p[:macAt])
	authentic := r.keyID == key.ID && hmac.Equal(mac.Sum(nil)[:MACSize], p[macAt:MessageSize])
	if ok != (!r.auth || authentic) || (k != nil) != (r.auth && authentic) {
		t.Errorf("request %x (%+v): authenticate = %v, %v; want authentic %v", p, r, k != nil, ok, authentic)
	}
}
