// Command diperf is a distributed performance-testing framework: see
// `diperf help` and the README.
package main

import (
	"os"

	"github.com/diperf/diperf/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
