package protocol

import (
	"encoding/json"
	"fmt"
	"math"
)

// Hello is the tester's first message.
type Hello struct {
	Proto int    `json:"proto"` // protocol version
	Slot  int    `json:"slot"`  // the slot the controller started this tester for (AnySlot: any)
	ID    string `json:"id"`    // host:pid
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	Nonce []byte `json:"nonce"` // challenge for the controller
	Kex   []byte `json:"kex"`   // the tester's X25519 share
	// Steerable says the tester obeys load steps (TypeLoad): a
	// controller sets TestDesc.Steered only for a tester that said so,
	// since an older one ends its test at a frame it does not know.
	Steerable bool `json:"steerable,omitempty"`
}

// AnySlot in Hello.Slot asks for any slot still waiting for its tester:
// a tester that was started by another engine and joins on its own
// (diperf tester --join).
const AnySlot = -1

// Challenge is the controller's answer to Hello: its nonce and key
// share, and the run's name. It proves nothing yet: the controller signs
// only once the tester proved it holds the secret (Welcome), so that a
// peer without the secret learns nothing it could test a guess against.
type Challenge struct {
	Nonce []byte `json:"nonce"` // challenge for the tester
	Kex   []byte `json:"kex"`   // the controller's X25519 share
	Run   string `json:"run"`   // the run's name, which the tester's token must admit
}

// Auth is the tester's proof that it holds the shared secret.
type Auth struct {
	Proof []byte `json:"proof"`
}

// Welcome is the controller's proof that it is the run's controller,
// sent once the tester's Auth checked: its signature of the binding
// (SignController).
type Welcome struct {
	Sig []byte `json:"sig"`
}

// TestDesc is the test description of DiPerF §3.4.
type TestDesc struct {
	Target         string     `json:"target"`           // handed to the client as DIPERF_TARGET
	Client         ClientDesc `json:"client"`           // the client to run
	DurationNs     int64      `json:"duration_ns"`      // how long to run the client loop
	IntervalNs     int64      `json:"interval_ns"`      // time between two call starts
	TimeoutNs      int64      `json:"timeout_ns"`       // a call past this is killed
	SyncIntervalNs int64      `json:"sync_interval_ns"` // re-sync this often
	SyncProbes     int        `json:"sync_probes"`      // probes per sync burst
	BatchNs        int64      `json:"batch_ns"`         // flush samples at least this often
	TimeServer     string     `json:"time_server"`      // time server host:port
	TimeTransport  string     `json:"time_transport"`   // "udp" or "tcp"
	StartAtNs      int64      `json:"start_at_ns"`      // global time to start the client loop; 0 = at once
	HeartbeatNs    int64      `json:"heartbeat_ns"`     // send a heartbeat this often (0: none)
	// SilenceNs is how long the controller may say nothing before the
	// tester takes itself for cut off (0: the tester's own default); the
	// controller marks a tester silent for as long lost.
	SilenceNs int64 `json:"silence_ns"`
	Slot      int   `json:"slot"` // the tester's slot (it may have asked for AnySlot)
	// ClientsPerTester is how many client loops the tester runs at once,
	// each its own closed loop with its own client index (0 means 1).
	ClientsPerTester int `json:"clients_per_tester,omitempty"`
	// ClientStartIntervalNs staggers them: client j starts j times this
	// after the tester's loop start (0: all together).
	ClientStartIntervalNs int64 `json:"client_start_interval_ns,omitempty"`
	// Rate, when set, is the open model: calls are started at this
	// tester's arrival rate by whichever of its clients is free, instead
	// of each client's closed loop (IntervalNs is then unused).
	Rate *RateDesc `json:"rate,omitempty"`
	// UDP, when set, grants the tester a UDP session: it sends its sample
	// batches as datagrams to UDP.Addr (UDPSender) instead of TCP frames;
	// everything else stays on this connection.
	UDP *UDPDesc `json:"udp,omitempty"`
	// TimeKeyID, when set, names the tester's own time key, which both
	// sides derive from the session's keys (Keys.TimeKey) and the time
	// server holds: its clock sync probes carry the id and a MAC made
	// with the key, and it takes only replies MACed with it
	// (docs/design/002-time.md). 0: the time server holds no keys
	// (sync.server), and the tester's syncs are not authenticated.
	TimeKeyID uint32 `json:"time_key_id,omitempty"`
	// Health asks the tester to send its self-health each second
	// (TypeHealth, HealthBatch): a controller that does not know the
	// message never asks, and an older tester ignores the request.
	Health bool `json:"health,omitempty"`
	// Steered says the controller may move this tester's load while it
	// runs, with TypeLoad steps (LoadStep): the open model's rate, or the
	// closed model's active clients. A tester refuses, and counts, a step
	// of a run that did not say so. Set only for a tester whose Hello was
	// Steerable.
	Steered bool `json:"steered,omitempty"`
}

// Clients returns how many client loops the description asks for.
func (d *TestDesc) Clients() int { return max(d.ClientsPerTester, 1) }

// Validate checks a TestDesc received from the wire.
func (d *TestDesc) Validate() error {
	if err := d.Client.Validate(); err != nil {
		return err
	}
	switch {
	case d.DurationNs <= 0, d.TimeoutNs <= 0, d.SyncIntervalNs <= 0, d.BatchNs <= 0:
		return fmt.Errorf("testdesc: durations must be positive")
	case d.IntervalNs < 0:
		return fmt.Errorf("testdesc: negative interval")
	case d.SyncProbes < 1 || d.SyncProbes > 64:
		return fmt.Errorf("testdesc: sync_probes must be 1..64")
	case d.TimeServer == "" || (d.TimeTransport != "udp" && d.TimeTransport != "tcp"):
		return fmt.Errorf("testdesc: need a time server and a transport (udp or tcp)")
	}
	if err := d.validateClients(); err != nil {
		return err
	}
	if d.UDP != nil {
		if err := d.UDP.Validate(); err != nil {
			return fmt.Errorf("testdesc: %w", err)
		}
	}
	if d.Rate != nil {
		return d.Rate.Validate()
	}
	return nil
}

// validateClients checks the number of client loops and their stagger:
// the last client's start, (clients − 1) × interval, must not overflow.
func (d *TestDesc) validateClients() error {
	switch n := d.ClientsPerTester; {
	case n < 0 || n > MaxClientsPerTester:
		return fmt.Errorf("testdesc: clients_per_tester must be 1..%d, got %d", MaxClientsPerTester, n)
	case d.ClientStartIntervalNs < 0:
		return fmt.Errorf("testdesc: negative client_start_interval_ns")
	case n > 1 && d.ClientStartIntervalNs > math.MaxInt64/int64(n):
		return fmt.Errorf("testdesc: client_start_interval_ns of %d for %d clients overflows", d.ClientStartIntervalNs, n)
	}
	return nil
}

// SyncRecord is the outcome of one clock sync: at local time LocalNs the
// tester estimated global = local + OffsetNs, within ± BoundNs.
type SyncRecord struct {
	LocalNs  int64 `json:"local_ns"`
	OffsetNs int64 `json:"offset_ns"`
	RTTNs    int64 `json:"rtt_ns"`
	BoundNs  int64 `json:"bound_ns"`
	// Auth is whether the replies of the sync were authenticated with
	// the tester's time key (TestDesc.TimeKeyID, Keys.Time).
	Auth bool `json:"auth,omitempty"`
	// Refused counts the replies the tester refused since it started:
	// they failed authentication (forged or altered on the path).
	Refused uint64 `json:"refused,omitempty"`
	// Disagree counts the probes of this sync's burst, of Probes
	// answered, whose offsets disagree with the one kept beyond both
	// their error bounds: honest probes never do.
	Disagree int `json:"disagree,omitempty"`
	Probes   int `json:"probes,omitempty"`
}

// Started tells the controller when the client loop started (local ns)
// and the network round trip to the target the tester measured before
// (the fastest of a few TCP connects; 0 when not measured).
type Started struct {
	LocalNs     int64 `json:"local_ns"`
	TargetRTTNs int64 `json:"target_rtt_ns,omitempty"`
}

// Done is the tester's last message: how it ended and what it produced.
type Done struct {
	LocalNs  int64  `json:"local_ns"` // when the client loop ended
	Produced uint64 `json:"produced"` // samples produced
	Reason   string `json:"reason"`   // "completed", "stopped", ...
	// UDPLastSeq is, on a UDP session, the sequence number of the last
	// datagram the tester sealed (UDPSender.LastSeq; 0: none): the
	// controller counts every number up to it that never arrived as lost,
	// the trailing ones included.
	UDPLastSeq uint64 `json:"udp_last_seq,omitempty"`
	// UDPSendErrors counts the datagrams the tester sealed but its socket
	// refused to send (e.g. ENOBUFS): lost at the sender, and so among the
	// controller's lost, told apart in the report.
	UDPSendErrors uint64 `json:"udp_send_errors,omitempty"`
	// LoadSteps counts the load steps (TypeLoad) the tester took, and
	// LoadRefused those it refused (out of order, out of its time window,
	// too many in a second, malformed, or not asked for), the last one's
	// reason in LoadRefusedWhy.
	LoadSteps      uint64 `json:"load_steps,omitempty"`
	LoadRefused    uint64 `json:"load_refused,omitempty"`
	LoadRefusedWhy string `json:"load_refused_why,omitempty"`
}

// Heartbeat is the optional payload of a TypeHeartbeat frame: most
// heartbeats carry none (an empty payload), any frame being a sign of life;
// a tester says here, once, what went wrong that the controller should
// record but that does not end the test.
type Heartbeat struct {
	// SpoolError is why the tester's own disk spool stopped taking
	// samples (e.g. a full disk); its samples still go over the wire.
	SpoolError string `json:"spool_error,omitempty"`
	// Probe, when not 0, asks the peer to answer at once (the controller
	// answers with a heartbeat carrying the same number): a tester that
	// has not heard its controller for a while asks before it takes
	// itself for cut off (docs/design/011-failure-semantics.md).
	Probe uint64 `json:"probe,omitempty"`
}

// ErrorMsg carries a fatal error to the peer.
type ErrorMsg struct {
	Msg string `json:"msg"`
	// Busy says the controller refused the connection for want of room
	// before any handshake, not for what the tester is or said: the
	// tester may try again.
	Busy bool `json:"busy,omitempty"`
	// Full says the controller admitted the tester (after the handshake,
	// on the secured connection) but every tester slot of the run is
	// taken: the tester is not needed.
	Full bool `json:"full,omitempty"`
}

// PeerError is an Error frame the peer sent (Expect returns it).
type PeerError struct {
	Msg  string
	Busy bool // refused for want of room (ErrorMsg.Busy)
	Full bool // every tester slot is taken (ErrorMsg.Full)
}

func (e *PeerError) Error() string { return "peer: " + e.Msg }

// WriteJSON encodes v as the payload of a frame of type t.
func (c *Conn) WriteJSON(t Type, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Write(t, b)
}

// DecodeJSON decodes a JSON payload of a frame of type t into v.
func DecodeJSON(t Type, payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("protocol: bad %s message: %w", t, err)
	}
	return nil
}

// Expect reads one frame and decodes it into v, failing unless it has type t.
// A TypeError frame from the peer becomes an error with its text.
func (c *Conn) Expect(t Type, v any) error {
	got, payload, err := c.Read()
	if err != nil {
		return err
	}
	if got == TypeError {
		var m ErrorMsg
		_ = DecodeJSON(got, payload, &m)
		return &PeerError{Msg: m.Msg, Busy: m.Busy, Full: m.Full}
	}
	if got != t {
		return fmt.Errorf("protocol: want %s, got %s", t, got)
	}
	return DecodeJSON(got, payload, v)
}
