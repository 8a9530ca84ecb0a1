//go:build !race

package directory

const raceOn = false
