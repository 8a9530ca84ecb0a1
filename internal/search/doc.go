// Package search is the decision engine of `diperf search`
// (docs/design/019-search.md): from the per-second aggregates of a run
// whose load it sets, it decides, step by step, whether a load meets the
// service-level objectives, and chooses the next load, until the highest
// load that meets them all is bracketed within the precision asked.
//
// It is pure: no network, no processes, no clock of its own. Time is the
// seconds it is fed (a Second is one second of the run's timeline), so
// that it runs the same on a live run and on fake data. A Step holds one
// load: Add feeds it its seconds until it is decided; a Searcher chooses
// the loads: Next takes the last step's record and returns the next load,
// or done with the verdict in Result.
//
// It imports only the leaves (stats for the histograms' geometry,
// experiment for the checks' syntax, jsonnum), so that the analysis, the
// run directory, the report and the controller may all use its records.
package search
