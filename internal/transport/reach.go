package transport

// Reach is how a tester opens its connection to its controller: one of
// the three ways of docs/design/006 ("How a tester reaches its
// controller: one choice"). The run chooses it once (testbed.Choose);
// the testbed starts its testers with its Flag, and the tester follows
// it (tester.Options.Reach).
type Reach uint8

const (
	// Dial: the tester dials the address it was given, and tries again
	// only while the controller refuses it for want of room (diperf
	// tester --controller ADDR; the local provider).
	Dial Reach = iota
	// Join: the tester dials the address it was given and also waits
	// while the controller does not answer yet: an engine may start it
	// before its controller (diperf tester --join ADDR; the join and
	// slurm providers).
	Join
	// Attached: the testbed opens the channel itself and hands it to both
	// ends; the tester dials nothing (diperf tester --stdio over an SSH
	// session; the ssh provider).
	Attached
)

// String names r as the docs do.
func (r Reach) String() string {
	switch r {
	case Dial:
		return "dial"
	case Join:
		return "join"
	case Attached:
		return "attached"
	}
	return "unknown"
}

// Flag is the diperf tester flag that selects r.
func (r Reach) Flag() string {
	switch r {
	case Join:
		return "--join"
	case Attached:
		return "--stdio"
	}
	return "--controller"
}

// Dials reports whether a tester of r dials the controller's address:
// it then needs an address it can reach, and may come through relays.
func (r Reach) Dials() bool { return r != Attached }
