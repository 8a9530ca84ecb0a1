// Package analyze turns a run's samples into DiPerF's metrics: per-quantum
// offered load, throughput and response time, per-client utilization and
// fairness, the peak window, the saturation point and the summary table. It
// works on data alone, never on a live controller.
package analyze
