package protocol

import (
	"bytes"
	"net"
	"strconv"
	"testing"
)

// bufConn is a net.Conn over one in-memory buffer: what is written is read
// back, so a benchmark measures framing and MACs, not a network.
type bufConn struct {
	net.Conn
	b bytes.Buffer
}

func (c *bufConn) Read(p []byte) (int, error)  { return c.b.Read(p) }
func (c *bufConn) Write(p []byte) (int, error) { return c.b.Write(p) }

// BenchmarkFrames writes and reads back one sample-batch-sized frame per
// iteration, plain and secured (sequence number and HMAC-SHA256 on each
// side), so that one run gives the cost of authentication as a ratio:
//
//	go test -run '^$' -bench Frames -count 5 ./internal/protocol
func BenchmarkFrames(b *testing.B) {
	for _, size := range []int{4 << 10, 256 << 10} {
		payload := make([]byte, size)
		for _, secured := range []bool{false, true} {
			name := "plain"
			if secured {
				name = "secured"
			}
			b.Run(name+"/"+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
				bc := &bufConn{}
				w, r := NewConn(bc), NewConn(bc)
				w.limit, r.limit = MaxFrame+SecureOverhead, MaxFrame+SecureOverhead
				if secured {
					bind := Binding{Proto: Version, Slot: 1, ID: "h:1", TesterNonce: NewNonce(), ControllerNonce: NewNonce()}
					w.Secure(SessionKeys(bytes.Repeat([]byte{7}, 32), testShared, RoleTester, bind))
					r.Secure(SessionKeys(bytes.Repeat([]byte{7}, 32), testShared, RoleController, bind))
				}
				b.SetBytes(int64(size))
				for b.Loop() {
					if err := w.Write(TypeSamples, payload); err != nil {
						b.Fatal(err)
					}
					if _, _, err := r.Read(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
