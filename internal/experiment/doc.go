// Package experiment reads and writes diperf's experiment file: a YAML
// document naming the target, the client command, the testbed, the schedule
// of testers, the clock-sync interval and the analysis quantum.
//
// Decoding is strict. Unknown keys, duplicate keys, wrong types and bad
// durations are all reported at once, each with the file, line and key path
// (for example "exp.yaml:12: schedule.testers: want an integer, got
// \"twenty\""), in an *Error.
package experiment
