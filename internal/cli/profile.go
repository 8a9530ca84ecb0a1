package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// profileEnv names a file that gets a CPU profile of the whole command:
// `diperf bench controller --cpuprofile` sets it for its controller child.
// It is for benchmarks and is not a documented flag.
const profileEnv = "DIPERF_CPUPROFILE"

// startProfile starts the CPU profile profileEnv asks for; the returned
// func ends it.
func startProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "diperf: %s: no CPU profile: %v\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
