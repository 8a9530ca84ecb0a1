package netprobe

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Limits of the protocol: every input is bounded by them before anything
// is allocated or waited for.
const (
	// MaxTestTime is the longest test a server accepts.
	MaxTestTime = 60 * time.Second
	// MinTestTime is the shortest (one bin).
	MinTestTime = Bin
	// Bin is the receiver's counting interval of a bandwidth test; test
	// times are whole numbers of bins.
	Bin = 100 * time.Millisecond
	// MaxMessage is the largest latency request (and response).
	MaxMessage = 4096
	// NonceSize is the size of each side's nonce.
	NonceSize = 32
	// RequestSize is the size of a request on the wire.
	RequestSize = requestBody + sha256.Size
	// maxBins bounds a bandwidth report.
	maxBins = int(MaxTestTime / Bin)
)

const (
	magic       = "DNP1"
	requestBody = 4 + 1 + 1 + 4 + 4 + NonceSize // magic kind flags ms size nonce
	replySize   = 1 + sha256.Size
	reportHead  = 2 + 8 // bins, elapsed ns
)

// Proof labels: each message's proof is bound to its role, so none can be
// reflected as another.
const (
	labelRequest = "diperf-netprobe-request-v1"
	labelReply   = "diperf-netprobe-reply-v1"
	labelReport  = "diperf-netprobe-report-v1"
)

// Kind is a test kind.
type Kind byte

// Test kinds.
const (
	KindBandwidth Kind = 1
	KindLatency   Kind = 2
)

func (k Kind) String() string {
	switch k {
	case KindBandwidth:
		return "bandwidth"
	case KindLatency:
		return "latency"
	}
	return fmt.Sprintf("kind(%d)", byte(k))
}

// Reply statuses.
const (
	statusOK      byte = 0
	statusBusy    byte = 1
	statusRefused byte = 2 // the server's Budget refused the test
)

// Request is what a client asks of a server.
type Request struct {
	Kind     Kind
	TestTime time.Duration // a whole number of Bin, MinTestTime to MaxTestTime
	Size     int           // latency: request and response bytes, 1 to MaxMessage; bandwidth: 0
	Nonce    []byte        // the client's nonce, NonceSize bytes
}

// errBadRequest is wrapped by every decoding error of a request.
var errBadRequest = errors.New("netprobe: bad request")

// validate checks r against the protocol's limits.
func (r Request) validate() error {
	switch {
	case r.Kind != KindBandwidth && r.Kind != KindLatency:
		return fmt.Errorf("%w: unknown kind %d", errBadRequest, byte(r.Kind))
	case r.TestTime < MinTestTime || r.TestTime > MaxTestTime || r.TestTime%Bin != 0:
		return fmt.Errorf("%w: test time %v: want a multiple of %v from %v to %v", errBadRequest, r.TestTime, Bin, MinTestTime, MaxTestTime)
	case r.Kind == KindBandwidth && r.Size != 0:
		return fmt.Errorf("%w: bandwidth request with size %d", errBadRequest, r.Size)
	case r.Kind == KindLatency && (r.Size < 1 || r.Size > MaxMessage):
		return fmt.Errorf("%w: latency size %d: want 1 to %d", errBadRequest, r.Size, MaxMessage)
	case len(r.Nonce) != NonceSize:
		return fmt.Errorf("%w: nonce of %d bytes", errBadRequest, len(r.Nonce))
	}
	return nil
}

// body encodes r without its proof.
func (r Request) body() []byte {
	b := make([]byte, 0, RequestSize)
	b = append(b, magic...)
	b = append(b, byte(r.Kind), 0)
	b = binary.BigEndian.AppendUint32(b, uint32(r.TestTime/time.Millisecond))
	b = binary.BigEndian.AppendUint32(b, uint32(r.Size))
	return append(b, r.Nonce...)
}

// EncodeRequest is r on the wire, with its proof for the server's nonce.
func EncodeRequest(token, serverNonce []byte, r Request) ([]byte, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	body := r.body()
	return append(body, mac(token, labelRequest, serverNonce, body)...), nil
}

// ParseRequest decodes a request of exactly RequestSize bytes and checks
// its limits and its proof for the server's nonce. It never allocates
// more than the request's size.
func ParseRequest(token, serverNonce, b []byte) (Request, error) {
	if len(b) != RequestSize {
		return Request{}, fmt.Errorf("%w: %d bytes, want %d", errBadRequest, len(b), RequestSize)
	}
	if string(b[:4]) != magic {
		return Request{}, fmt.Errorf("%w: no netprobe magic", errBadRequest)
	}
	if b[5] != 0 {
		return Request{}, fmt.Errorf("%w: flags %#x", errBadRequest, b[5])
	}
	r := Request{
		Kind:     Kind(b[4]),
		TestTime: time.Duration(binary.BigEndian.Uint32(b[6:10])) * time.Millisecond,
		Size:     int(binary.BigEndian.Uint32(b[10:14])),
		Nonce:    append([]byte(nil), b[14:requestBody]...),
	}
	if err := r.validate(); err != nil {
		return Request{}, err
	}
	if !hmac.Equal(mac(token, labelRequest, serverNonce, b[:requestBody]), b[requestBody:]) {
		return Request{}, fmt.Errorf("%w: wrong proof (no mesh token)", errBadRequest)
	}
	return r, nil
}

// mac is HMAC-SHA256(token, label || parts...).
func mac(token []byte, label string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, token)
	m.Write([]byte(label))
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// replyMAC binds a reply's status to the server's nonce and the request.
func replyMAC(token, serverNonce, request []byte, status byte) []byte {
	return mac(token, labelReply, serverNonce, request, []byte{status})
}

// newNonce returns NonceSize random bytes.
func newNonce() []byte {
	b := make([]byte, NonceSize)
	if _, err := rand.Read(b); err != nil {
		panic("netprobe: no randomness: " + err.Error())
	}
	return b
}

// report is what the receiver of a bandwidth test counted.
type report struct {
	Elapsed time.Duration // the receiver's counting window
	Bins    []uint64      // bytes arrived in each Bin of the window
}

// encodeReport is rep on the wire, with its proof bound to the request.
func encodeReport(token, serverNonce, request []byte, rep report) []byte {
	b := make([]byte, 0, reportHead+8*len(rep.Bins)+sha256.Size)
	b = binary.BigEndian.AppendUint16(b, uint16(len(rep.Bins)))
	b = binary.BigEndian.AppendUint64(b, uint64(rep.Elapsed))
	for _, n := range rep.Bins {
		b = binary.BigEndian.AppendUint64(b, n)
	}
	return append(b, mac(token, labelReport, serverNonce, request, b)...)
}

// reportHeader decodes a report's head: how many bins follow.
func reportHeader(head []byte) (bins int, elapsed time.Duration, err error) {
	bins = int(binary.BigEndian.Uint16(head[:2]))
	elapsed = time.Duration(binary.BigEndian.Uint64(head[2:reportHead]))
	if bins < 1 || bins > maxBins || elapsed <= 0 || elapsed > MaxTestTime {
		return 0, 0, fmt.Errorf("netprobe: bad report: %d bins over %v", bins, elapsed)
	}
	return bins, elapsed, nil
}

// parseReport decodes the rest of a report (bins and proof) and checks it.
func parseReport(token, serverNonce, request, head, rest []byte, bins int, elapsed time.Duration) (report, error) {
	body := append(append([]byte(nil), head...), rest[:8*bins]...)
	if !hmac.Equal(mac(token, labelReport, serverNonce, request, body), rest[8*bins:]) {
		return report{}, errors.New("netprobe: the bandwidth report's proof is wrong: not from a holder of the mesh token")
	}
	rep := report{Elapsed: elapsed, Bins: make([]uint64, bins)}
	for i := range rep.Bins {
		rep.Bins[i] = binary.BigEndian.Uint64(rest[8*i:])
	}
	return rep, nil
}
