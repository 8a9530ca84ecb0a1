package protocol

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

func TestBatchRoundTrip(t *testing.T) {
	t.Parallel()
	in := &Batch{Produced: 42, Samples: []sample.Sample{
		{Seq: 1, Start: 1_000_000, End: 1_050_000, Status: sample.OK, Bytes: 12},
		{Seq: 2, Client: 7, Start: 900_000, End: 2_000_000, Status: sample.Timeout, Err: "killed after 1s"},
		{Seq: 3, Client: MaxClientIndex, Start: -5, End: -5, Status: sample.FailedToStart, Err: strings.Repeat("x", 1000)},
	}}
	out, err := DecodeBatch(AppendBatch(nil, in))
	if err != nil {
		t.Fatal(err)
	}
	in.Samples[2].Err = in.Samples[2].Err[:MaxErrText] // long texts are cut, not rejected
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

func TestDecodeBatchRejects(t *testing.T) {
	t.Parallel()
	good := AppendBatch(nil, &Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: 10, End: 20}}})
	tests := []struct {
		name string
		p    []byte
	}{
		{"empty payload", nil},
		{"truncated", good[:len(good)-2]},
		{"trailing bytes", append(append([]byte{}, good...), 0)},
		{"too many samples", binary.AppendUvarint(binary.AppendUvarint([]byte{BatchVersion}, 1), MaxBatch+1)},
		{"unknown status", AppendBatch(nil, &Batch{Samples: []sample.Sample{{Seq: 1, Status: 200}}})},
		{"ends before start", AppendBatch(nil, &Batch{Samples: []sample.Sample{{Seq: 1, Start: 10, End: 5}}})},
		{"client index past the bound", AppendBatch(nil, &Batch{Samples: []sample.Sample{{Seq: 1, Client: MaxClientIndex + 1}}})},
		{"client index past uint32", badClientBatch()},
	}
	for _, tt := range tests {
		if _, err := DecodeBatch(tt.p); err == nil {
			t.Errorf("%s: decoded without error", tt.name)
		}
	}
}

// TestDecodeBatchChecksVersion feeds batches in encodings this build does
// not read: each is refused with ErrBatchVersion and a message naming the
// version, never decoded as something else.
func TestDecodeBatchChecksVersion(t *testing.T) {
	t.Parallel()
	good := AppendBatch(nil, &Batch{Produced: 7, Samples: []sample.Sample{{Seq: 7, Start: 10, End: 20}}})
	tests := []struct {
		name string
		p    []byte
		want string
	}{
		// protocol version 1 had no version byte: uvarint(produced) came first
		{"unversioned, as protocol 1 sent it", good[1:], "version 7"},
		{"a future version", append([]byte{BatchVersion + 1}, good[1:]...), "version 5"},
		{"version 1", append([]byte{1}, good[1:]...), "version 1"},
		{"version zero", append([]byte{0}, good[1:]...), "version 0"},
	}
	for _, tt := range tests {
		_, err := DecodeBatch(tt.p)
		if !errors.Is(err, ErrBatchVersion) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want ErrBatchVersion naming %q", tt.name, err, tt.want)
		}
	}
	if good[0] != BatchVersion {
		t.Errorf("batch starts with %d, want the version byte %d", good[0], BatchVersion)
	}
}

// badClientBatch is a version-3 batch of one sample whose client index
// does not fit 32 bits.
func badClientBatch() []byte {
	p := []byte{BatchVersion, 1, 1, 1, 0, 0, byte(sample.OK)}
	p = binary.AppendUvarint(p, 1<<40)
	return append(p, 0, 0)
}

// appendBatchV2 encodes b as version 2 did, before client indexes.
func appendBatchV2(dst []byte, b *Batch) []byte { return appendOldBatch(dst, batchVersion2, b) }

// appendOldBatch encodes b as version 2 or 3 wrote it: version 3 has the
// client index after the status, neither has version 4's flags.
func appendOldBatch(dst []byte, version byte, b *Batch) []byte {
	dst = append(dst, version)
	dst = binary.AppendUvarint(dst, b.Produced)
	dst = binary.AppendUvarint(dst, uint64(len(b.Samples)))
	var prev int64
	for _, s := range b.Samples {
		dst = binary.AppendUvarint(dst, s.Seq)
		dst = binary.AppendVarint(dst, s.Start-prev)
		prev = s.Start
		dst = binary.AppendVarint(dst, s.End-s.Start)
		dst = append(dst, byte(s.Status))
		if version >= batchVersion3 {
			dst = binary.AppendUvarint(dst, uint64(s.Client))
		}
		dst = binary.AppendVarint(dst, s.Bytes)
		dst = binary.AppendUvarint(dst, uint64(len(s.Err)))
		dst = append(dst, s.Err...)
	}
	return dst
}

// TestDecodeBatchVersion2 decodes batches as older testers sent them and
// older spools hold them: every field read, every sample of client 0.
func TestDecodeBatchVersion2(t *testing.T) {
	t.Parallel()
	in := &Batch{Produced: 9, Samples: []sample.Sample{
		{Seq: 8, Start: 1_000, End: 3_000, Status: sample.OK, Bytes: 5},
		{Seq: 9, Start: 500, End: 800, Status: sample.Failed, Err: "exit status 1"},
	}}
	// The same batch byte for byte as version 2 wrote it.
	literal := []byte{2, 9, 2, 8, 0xd0, 0x0f, 0xa0, 0x1f, 0, 10, 0, 9, 0xe7, 0x07, 0xd8, 0x04, 1, 0, 13}
	literal = append(literal, "exit status 1"...)
	if p := appendBatchV2(nil, in); !bytes.Equal(p, literal) {
		t.Fatalf("version-2 encoding\n got %v\nwant %v", p, literal)
	}
	out, err := DecodeBatch(literal)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("version 2:\n got %+v\nwant %+v", out, in)
	}
	// Decoded and encoded anew, it is a batch of this version with the same samples.
	if again, err := DecodeBatch(AppendBatch(nil, out)); err != nil || !reflect.DeepEqual(again, in) {
		t.Fatalf("re-encoded: %+v, %v", again, err)
	}
}

// TestTestDescClients checks the client loops a test description asks
// for: none said is one, and the count and stagger are bounded.
func TestTestDescClients(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n        int
		interval int64
		clients  int
		errHas   string
	}{
		{0, 0, 1, ""},
		{1, 0, 1, ""},
		{MaxClientsPerTester, 1e9, MaxClientsPerTester, ""},
		{MaxClientsPerTester + 1, 0, 0, "clients_per_tester must be 1..100000"},
		{-1, 0, 0, "clients_per_tester must be"},
		{2, -1, 0, "negative client_start_interval_ns"},
		{1000, 1 << 62, 0, "overflows"},
	}
	for _, tt := range tests {
		d := TestDesc{Client: ClientDesc{Kind: ClientExec, Argv: []string{"true"}}, DurationNs: 1, TimeoutNs: 1,
			SyncIntervalNs: 1, BatchNs: 1, SyncProbes: 1, TimeServer: "ts:1", TimeTransport: "udp",
			ClientsPerTester: tt.n, ClientStartIntervalNs: tt.interval}
		err := d.Validate()
		switch {
		case tt.errHas == "" && (err != nil || d.Clients() != tt.clients):
			t.Errorf("%d clients every %d ns: %v, %d clients, want valid with %d", tt.n, tt.interval, err, d.Clients(), tt.clients)
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("%d clients every %d ns: %v, want an error holding %q", tt.n, tt.interval, err, tt.errHas)
		}
	}
	b, err := json.Marshal(TestDesc{ClientsPerTester: 50, ClientStartIntervalNs: 1e6})
	if err != nil || !strings.Contains(string(b), `"clients_per_tester":50`) || !strings.Contains(string(b), `"client_start_interval_ns":1000000`) {
		t.Errorf("on the wire: %s %v", b, err)
	}
}

// TestTestDescClient checks the client part of a test description as a
// tester receives it: the kind is named on the wire and checked.
func TestTestDescClient(t *testing.T) {
	t.Parallel()
	valid := func() TestDesc {
		return TestDesc{Client: ClientDesc{Kind: ClientExec, Argv: []string{"true"}}, DurationNs: 1, TimeoutNs: 1,
			SyncIntervalNs: 1, BatchNs: 1, SyncProbes: 1, TimeServer: "ts:1", TimeTransport: "udp"}
	}
	tests := []struct {
		name   string
		mutate func(*TestDesc)
		errHas string // "" = valid
	}{
		{"exec", func(*TestDesc) {}, ""},
		{"unknown kind", func(d *TestDesc) { d.Client.Kind = "grpc" }, `unknown client kind "grpc"`},
		{"no kind", func(d *TestDesc) { d.Client.Kind = "" }, "no kind"},
		{"exec without argv", func(d *TestDesc) { d.Client.Argv = nil }, "argv must have 1.."},
		{"exec with too long argv", func(d *TestDesc) { d.Client.Argv = make([]string, MaxArgv+1) }, "argv must have 1.."},
		{"exec with an empty program", func(d *TestDesc) { d.Client.Argv = []string{""} }, "empty program"},
		{"bad durations still caught", func(d *TestDesc) { d.DurationNs = 0 }, "durations"},
	}
	for _, tt := range tests {
		d := valid()
		tt.mutate(&d)
		err := d.Validate()
		if (tt.errHas == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.errHas)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.errHas)
		}
	}
	b, err := json.Marshal(valid())
	if err != nil || !strings.Contains(string(b), `"client":{"kind":"exec","argv":["true"]}`) {
		t.Errorf("wire form %s, %v", b, err)
	}
}

func TestFrameLimits(t *testing.T) {
	t.Parallel()
	var hdr [5]byte
	binary.BigEndian.PutUint32(hdr[:4], MaxFrame+1)
	hdr[4] = byte(TypeSamples)
	if _, _, err := ReadFrame(bytes.NewReader(hdr[:])); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("oversized frame: err = %v, want ErrFrameTooLarge", err)
	}
	hdr = [5]byte{0, 0, 0, 0, 99}
	if _, _, err := ReadFrame(bytes.NewReader(hdr[:])); err == nil {
		t.Error("unknown type accepted")
	}
	if err := WriteFrame(&bytes.Buffer{}, TypeSamples, make([]byte, MaxFrame+1)); err == nil {
		t.Error("oversized write accepted")
	}
}

func TestConnJSONAndBinary(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	ca, cb := NewConn(a), NewConn(b)
	defer ca.Close()
	defer cb.Close()
	go func() {
		_ = ca.WriteJSON(TypeHello, Hello{Proto: Version, Slot: 3, ID: "h:1"})
		_ = ca.Write(TypeSamples, AppendBatch(nil, &Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: 1, End: 2}}}))
		_ = ca.WriteJSON(TypeError, ErrorMsg{Msg: "go away"})
	}()
	var h Hello
	if err := cb.Expect(TypeHello, &h); err != nil || h.Slot != 3 || h.ID != "h:1" {
		t.Fatalf("hello: %+v %v", h, err)
	}
	typ, p, err := cb.Read()
	if err != nil || typ != TypeSamples {
		t.Fatalf("samples: %v %v", typ, err)
	}
	if b, err := DecodeBatch(p); err != nil || b.Produced != 1 || len(b.Samples) != 1 || b.Samples[0].End != 2 {
		t.Fatalf("batch %+v %v", b, err)
	}
	if err := cb.Expect(TypeDone, &Done{}); err == nil || !strings.Contains(err.Error(), "go away") {
		t.Fatalf("error frame: %v", err)
	}
}

func TestProof(t *testing.T) {
	t.Parallel()
	secret := []byte("s3cret")
	b := testBinding(3)
	p := Proof(secret, RoleTester, b)
	if !CheckProof(secret, RoleTester, b, p) {
		t.Error("valid proof refused")
	}
	if CheckProof(secret, RoleController, b, p) {
		t.Error("proof reflected to the other role accepted")
	}
	if CheckProof([]byte("other"), RoleTester, b, p) {
		t.Error("proof with the wrong secret accepted")
	}
}

// TestControllerSignature: only the holder of the controller's private
// key signs a binding that checks, and only for that binding; the
// testers' secret makes no signature.
func TestControllerSignature(t *testing.T) {
	t.Parallel()
	pub, key, _ := ed25519.GenerateKey(nil)
	otherPub, otherKey, _ := ed25519.GenerateKey(nil)
	b := testBinding(3)
	sig := SignController(key, b)
	if !CheckController(pub, b, sig) {
		t.Fatal("the controller's own signature refused")
	}
	if CheckController(otherPub, b, sig) || CheckController(pub, b, SignController(otherKey, b)) {
		t.Error("a signature under another key accepted")
	}
	o := b
	o.Run = "other-run"
	if CheckController(pub, o, sig) {
		t.Error("a signature for another run accepted")
	}
	if CheckController(pub, b, Proof([]byte("s3cret"), RoleController, b)) {
		t.Error("an HMAC of the testers' secret accepted as the controller's proof")
	}
}

// TestShared: both ends of an X25519 exchange reach the same secret; a
// share that is no public key is refused.
func TestShared(t *testing.T) {
	t.Parallel()
	a, b := NewKex(), NewKex()
	sa, err := Shared(a, b.PublicKey().Bytes())
	sb, err2 := Shared(b, a.PublicKey().Bytes())
	if err != nil || err2 != nil || !bytes.Equal(sa, sb) {
		t.Fatalf("shared secrets differ: %v %v", err, err2)
	}
	if _, err := Shared(a, make([]byte, KexSize)); err == nil {
		t.Error("the all-zero (low-order) share accepted")
	}
	if _, err := Shared(a, []byte{1, 2}); err == nil {
		t.Error("a 2-byte share accepted")
	}
}

func FuzzDecodeBatch(f *testing.F) {
	good := AppendBatch(nil, &Batch{Produced: 2, Samples: []sample.Sample{{Seq: 1, Start: 5, End: 9, Err: "e"}}})
	f.Add(good)
	f.Add(good[1:])                                      // the unversioned encoding of protocol 1
	f.Add(append([]byte{BatchVersion + 1}, good[1:]...)) // a version from the future
	f.Add(AppendBatch(nil, &Batch{Produced: 3, Samples: []sample.Sample{{Seq: 2, Client: 1, Start: 5, End: 9},
		{Seq: 3, Client: MaxClientIndex, Start: 7, End: 8, Status: sample.Failed, Err: "x"}}}))
	f.Add(appendBatchV2(nil, &Batch{Produced: 2, Samples: []sample.Sample{{Seq: 1, Start: 5, End: 9, Err: "e"}}}))
	f.Add(badClientBatch())
	f.Add(AppendBatch(nil, &Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: 50, End: 90, Intended: 20,
		Phases: sample.Phases{Connect: 7, FirstByte: 9}, Extras: []sample.Extra{{Key: "mb", Value: 1.5}}}}}))
	f.Fuzz(func(t *testing.T, p []byte) {
		b, err := DecodeBatch(p)
		if err != nil {
			if len(p) > 0 && (p[0] < 2 || p[0] > BatchVersion) && !errors.Is(err, ErrBatchVersion) {
				t.Fatalf("batch of version %d refused without ErrBatchVersion: %v", p[0], err)
			}
			return
		}
		if _, err := DecodeBatch(AppendBatch(nil, b)); err != nil {
			t.Fatalf("re-encoding a decoded batch fails: %v", err)
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 9, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _, _ = ReadFrame(bytes.NewReader(p))
	})
}

// FuzzTestDesc decodes test descriptions as a tester receives them: a
// description that passes Validate names a known client kind with the
// fields that kind needs.
func FuzzTestDesc(f *testing.F) {
	f.Add([]byte(`{"client":{"kind":"exec","argv":["true"]},"duration_ns":1,"timeout_ns":1,"sync_interval_ns":1,"batch_ns":1,"sync_probes":1,"time_server":"t:1","time_transport":"udp"}`))
	f.Add([]byte(`{"client":{"kind":"grpc"},"argv":["true"]}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		var d TestDesc
		if DecodeJSON(TypeTestDesc, p, &d) != nil || d.Validate() != nil {
			return
		}
		if d.Client.Kind != ClientExec || len(d.Client.Argv) == 0 || d.Client.Argv[0] == "" {
			t.Fatalf("valid description with client %+v", d.Client)
		}
	})
}
