// Package model fits models of performance against offered load to a run's
// per-quantum figures, so that a run can predict what it did not measure:
// throughput and response time at a load it never reached, with intervals.
//
// # Throughput: the Universal Scalability Law
//
// Gunther's Universal Scalability Law gives throughput X at offered load N
// (calls in flight) as
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// where λ is the throughput of one call in flight, σ ∈ [0, 1] the
// contention (serial fraction) and κ ≥ 0 the coherency (crosstalk) cost.
// With κ > 0 throughput peaks at N* = sqrt((1−σ)/κ) and then falls.
//
// Fit minimises the sum of squared throughput residuals over the quanta in
// which a tester was active and the load was positive. The method is:
//
//  1. A coarse grid over σ and κ (κ scaled by the largest load, so the grid
//     places the peak from far beyond the data to far below it), with λ in
//     closed form for each pair: for fixed σ and κ the model is linear in λ.
//     This needs no starting guess and cannot diverge.
//  2. Levenberg–Marquardt from the best grid point, with Marquardt's
//     diagonal scaling (λ, σ and κ differ by orders of magnitude) and the
//     bounds kept by an active set: a parameter on its bound whose gradient
//     points outwards is held there, the others move and the step is
//     projected onto the box. The grid makes the start good enough for
//     Levenberg–Marquardt to converge quickly to the right minimum.
//  3. The same with κ held at 0 (Amdahl's law), and the Bayesian
//     information criterion chooses between the two: κ is reported only
//     when the data support it, so a service that merely levels off is not
//     given a spurious far-away peak.
//
// # Response time: Little's law
//
// With N calls in flight served at X calls/s, each call takes R = N / X
// seconds (Little's law), so the fitted throughput curve predicts the mean
// response time too: R(N) = (1 + σ(N−1) + κN(N−1)) / λ. The model reports
// how well this matches the measured per-quantum mean response times (R²),
// as a check of the fit and of the load measure.
//
// # Uncertainty: a wild residual bootstrap
//
// The fitted curve is refitted to Bootstrap.Resamples pseudo-data sets
// ŷᵢ + vᵢ·eᵢ, where eᵢ is the residual of quantum i (inflated by
// sqrt(n/(n−p)) for the p fitted parameters) and vᵢ = ±1 at random: a wild
// bootstrap, which keeps each residual at its own load. Throughput noise
// grows with throughput (completions per quantum are counts), so an
// ordinary residual bootstrap, which moves residuals between loads, would
// make the intervals too wide at low load and too narrow at high load. The
// generator is seeded, so the same data give the same intervals.
//
// Predict reports, for throughput and response time, the fitted value and
// the 2.5% and 97.5% percentiles of the bootstrap predictions: a 95%
// confidence interval of the mean at that load. It does not add the
// per-quantum scatter of a single new observation, which depends on the
// quantum length rather than on the service.
package model
