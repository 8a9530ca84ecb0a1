package controller

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/tester"
	"github.com/diperf/diperf/internal/transport"
)

// rogueJoin dials the controller as a tester speaking protocol version
// proto and runs the handshake up to the test description.
func rogueJoin(ctx context.Context, net *transport.Memory, s testbed.Spec, proto int) (*protocol.Conn, error) {
	nc, err := net.Dial(ctx, s.Controller)
	if err != nil {
		return nil, err
	}
	conn := protocol.NewConn(nc)
	hello := protocol.Hello{Proto: proto, Slot: s.Slot, ID: "rogue:1", Nonce: protocol.NewNonce()}
	_, err = tester.Handshake(conn, specToken(s), hello)
	return conn, err
}

// specToken is the token a testbed hands a tester (Spec.Token), parsed;
// the zero token if it does not parse.
func specToken(s testbed.Spec) credential.Token {
	tok, _ := credential.ParseToken(s.Token)
	return tok
}

// events reads the run's events.jsonl.
func events(t *testing.T, dir string) []rundir.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, rundir.Events))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []rundir.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e rundir.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("events.jsonl line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// TestOldTesterIsRejected has a tester of protocol version 1 join: it is
// told why it is refused, the refusal is in events.jsonl, and the
// controller goes on to the end of the run.
func TestOldTesterIsRejected(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(transport.NewMemory())
	told := make(chan error, 1)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		conn, err := rogueJoin(ctx, tb.net, s, 1)
		if conn != nil {
			conn.Close()
		}
		told <- err
		return err
	}
	o := inprocOptions(testExperiment(t, 1, time.Second), dir, tb)
	o.JoinTimeout = time.Second
	out, err := Run(context.Background(), o)
	if err == nil || out == nil || out.Failed != 1 {
		t.Fatalf("run: %+v, %v; want a run whose one tester failed", out, err)
	}
	want := fmt.Sprintf("protocol version 1 not supported (this controller speaks %d)", protocol.Version)
	if err := <-told; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the old tester was told %v, want %q", err, want)
	}
	rejected := false
	for _, e := range events(t, dir) {
		rejected = rejected || e.Event == "rejected" && strings.Contains(e.Detail, want)
	}
	if !rejected {
		t.Errorf("events.jsonl does not record the refusal %q", want)
	}
}

// TestOldBatchEncodingFailsThatTester has an admitted tester send a sample
// batch in protocol 1's unversioned encoding: that tester is marked failed
// with the reason, and the run still ends and writes its files.
func TestOldBatchEncodingFailsThatTester(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(transport.NewMemory())
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		conn, err := rogueJoin(ctx, tb.net, s, protocol.Version)
		if err != nil {
			return err
		}
		defer conn.Close()
		b := protocol.AppendBatch(nil, &protocol.Batch{Produced: 5, Samples: []sample.Sample{{Seq: 5, Start: 1, End: 2}}})
		if err := conn.Write(protocol.TypeSamples, b[1:]); err != nil {
			return err
		}
		for { // until the controller hangs up
			if _, _, err := conn.Read(); err != nil {
				return nil
			}
		}
	}
	out, err := Run(context.Background(), inprocOptions(testExperiment(t, 1, time.Second), dir, tb))
	if err == nil || out == nil || out.Failed != 1 || out.Samples != 0 {
		t.Fatalf("run: %+v, %v; want one failed tester and no samples", out, err)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || !strings.Contains(recs[0].FailureReason, "unknown sample batch encoding: version 5") {
		t.Errorf("testers.csv: %+v, want the failure reason to name the batch version", recs)
	}
}

// TestUnknownAdvertise checks that bad advertise addresses are usage
// errors before anything is created.
func TestUnknownAdvertise(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	o := inprocOptions(testExperiment(t, 1, time.Second), dir, newInproc(transport.NewMemory()))
	o.Advertise = "0.0.0.0"
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "wildcard") {
		t.Errorf("advertising a wildcard: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run directory was created: %v", err)
	}
}

// TestWildcardListenIsAdvertisedAsLoopback listens on every address over
// real TCP, with no advertise address and every tester on this machine:
// testers are told loopback, for the controller and its time server, and
// events.jsonl says so.
func TestWildcardListenIsAdvertisedAsLoopback(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(nil)
	tb.ready = testbed.Ready{Hosts: []string{testbed.LocalHost}}
	exp := testExperiment(t, 1, 300*time.Millisecond)
	exp.Sync.Transport = "udp"
	out, err := Run(context.Background(), Options{Experiment: exp, Dir: dir, Testbed: tb, Listen: "0.0.0.0:0"})
	if err != nil || out.Started != 1 || out.Failed != 0 {
		t.Fatalf("run: %+v, %v", out, err)
	}
	if c := tb.specs[0].Controller; !strings.HasPrefix(c, "127.0.0.1:") {
		t.Errorf("tester told to dial %q, want loopback", c)
	}
	said := map[string]string{}
	for _, e := range events(t, dir) {
		said[e.Event] = e.Detail
	}
	if d := said["advertised"]; !strings.HasPrefix(d, tb.specs[0].Controller+": loopback") {
		t.Errorf("events.jsonl advertised %q, want the loopback address and why", d)
	}
	if d := said["time-server"]; !strings.HasPrefix(d, "127.0.0.1:") {
		t.Errorf("time server told as %q, want loopback", d)
	}
}
