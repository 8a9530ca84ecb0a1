// Package netprobe is the network half of a sensor (issue 12, Gloperf §3):
// the end-to-end TCP tests a sensor runs to a peer, and the far end that
// serves them.
//
//   - Bandwidth: a TCP stream from the client (sender) to the Server
//     (receiver) for the test time. The receiver counts what arrived, in
//     100 ms bins, and reports back on the same connection; the client
//     derives the throughput over the whole test and after slow start
//     (see Steady).
//   - Latency: TCP request/response transactions on one connection for the
//     test time (netperf TCP_RR): transactions/s, latency = 1/(transactions/s),
//     and p50/p90/p99 of the round trips.
//
// Only peers holding the mesh token may run tests: the server sends a
// random nonce, the client's fixed-size request carries an HMAC-SHA256 proof
// over that nonce and the request; a wrong proof gets the connection closed
// and nothing else. Until its request is proved, a connection is held in a
// small pool of its own (package preauth: a first-byte deadline, a total
// and a per-source cap; MaxUnproved): an idle flood never takes the
// places of proved peers (MaxConns) nor the slot. A proved peer's test is
// served only when the Server's Budget (sensor.Served) allows it, within
// a byte allowance; otherwise it is answered "refused" and the client gets
// ErrRefused. The server's answer and its bandwidth report carry the
// server's own proofs, so the client knows they came from a token holder.
// A host takes part in at most one bandwidth test at a time, as sender or
// receiver (Slot): a server whose slot is held answers "busy" and the
// client gets ErrBusy; a hold is bounded (HoldLimit), and released and
// logged past it. docs/sensors.md ("Tests") has the wire format and the
// definitions.
package netprobe
