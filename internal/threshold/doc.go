// Package threshold checks a run against the thresholds of its experiment
// (docs/thresholds.md): at the end, on the analysis (Evaluate), and while
// it goes, on the controller's per-second aggregates (Live), so that a
// threshold with abort: true can stop the run early. It also writes the
// results for CI systems as a JUnit XML report (WriteJUnit).
package threshold
