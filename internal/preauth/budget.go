package preauth

// Bounds of the limits ForFiles makes.
const (
	// MinConns is the fewest connections a pool admits, whatever the
	// open-file limit leaves: a server that can hold none serves no one.
	MinConns = 16
	// MaxConns is the most: each costs a goroutine and a descriptor, and
	// proving oneself takes one round trip, so more never wait at once.
	MaxConns = 8192
	// minPerSource is what one source may hold at least (when the total
	// allows): the testers of one host (a local testbed, a bench
	// generator dialing 64 at a time) share its address.
	minPerSource = 64
)

// ForFiles returns the limits of a pool that may keep free descriptors
// open for peers not yet proved: free connections in all (within
// MinConns and MaxConns), an eighth of them from one source, at least
// minPerSource.
func ForFiles(free int) Limits {
	n := min(max(free, MinConns), MaxConns)
	return Limits{Conns: n, PerSource: max(min(n, minPerSource), n/8)}
}

// FreeFiles is how many more descriptors this process may open beside
// reserve: its open-file limit (RLIMIT_NOFILE, soft) less reserve, 0
// when reserve takes it all.
func FreeFiles(reserve uint64) int {
	lim := noFile()
	if lim <= reserve {
		return 0
	}
	return int(min(lim-reserve, 1<<30))
}
