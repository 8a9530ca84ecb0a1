package protocol

import (
	"crypto/aes"
	"crypto/cipher"
	"strconv"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// BenchmarkUDPSealOpen seals a datagram full of samples (encoding them)
// and opens it (authenticating, decrypting, accounting), one goroutine:
// the datagrams a core seals and opens a second, the samples they carry,
// and the bytes each datagram adds to its samples' encoding (header, tag,
// batch header):
//
//	go test -run '^$' -bench UDPSealOpen -count 5 -cpu 1 ./internal/protocol
func BenchmarkUDPSealOpen(b *testing.B) {
	in := testSamples(20_000)
	for _, size := range []int{DefaultDatagram, 8192} {
		b.Run("datagram="+strconv.Itoa(size), func(b *testing.B) {
			g := testGrant
			g.Datagram = size
			s, r := udpPair(b, testBinding(1), g)
			buf := make([]byte, 0, size)
			d, n, _ := s.SealBatch(1<<20, in)
			var enc []byte
			var prev int64
			for i := range n {
				enc = appendSample(enc, &in[i], prev)
				prev = in[i].Start
			}
			over := len(d) - len(enc)
			next, sent := 0, 0
			for b.Loop() {
				if next+2*n > len(in) {
					next = 0
				}
				d, k, err := s.SealBatch(1<<20, in[next:])
				if err != nil {
					b.Fatal(err)
				}
				next, sent = next+k, sent+k
				if _, err := r.Open(append(buf[:0], d...)); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N)/sec, "datagrams/s")
			b.ReportMetric(float64(sent)/sec, "samples/s")
			b.ReportMetric(float64(n), "samples/datagram")
			b.ReportMetric(float64(over), "overhead_B/datagram")
			b.ReportMetric(float64(len(d)), "B/datagram")
		})
	}
}

// BenchmarkUDPAEAD compares the AEADs the datagrams could use, sealing
// and opening a 1,400-byte datagram's payload: AES-128-GCM (hardware AES
// and carry-less multiply on amd64 and arm64) against
// ChaCha20-Poly1305.
//
//	go test -run '^$' -bench UDPAEAD -count 5 -cpu 1 ./internal/protocol
func BenchmarkUDPAEAD(b *testing.B) {
	key := make([]byte, 32)
	block, _ := aes.NewCipher(key[:16])
	gcm, _ := cipher.NewGCM(block)
	chacha, _ := chacha20poly1305.New(key)
	for name, a := range map[string]cipher.AEAD{"aes128gcm": gcm, "chacha20poly1305": chacha} {
		b.Run(name, func(b *testing.B) {
			nonce := make([]byte, a.NonceSize())
			hdr := make([]byte, UDPHeaderSize)
			pt := make([]byte, DefaultDatagram-UDPOverhead)
			buf := make([]byte, 0, DefaultDatagram)
			b.SetBytes(int64(len(pt)))
			for b.Loop() {
				ct := a.Seal(buf[:0], nonce, pt, hdr)
				if _, err := a.Open(ct[:0], nonce, ct, hdr); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "datagrams/s")
		})
	}
}
