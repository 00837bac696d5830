// Package precision is the stopping rule of adaptive repeats (`fleet run --precision P`): a point is
// repeated until the 95 % confidence interval of its median is within ±P % of the median.
//
// The interval is distribution-free, from order statistics: for n sorted repeats x(1) ≤ … ≤ x(n), the number
// B of repeats below the true median is Binomial(n, ½) whatever the distribution, so [x(j), x(k)] covers the
// median with probability P(j ≤ B < k). Ranks picks the narrowest symmetric pair (k = n+1−j) with that
// probability at least 95 %. With n < 6 no pair reaches 95 % ([x(1), x(5)] of five covers 93.75 %), so a
// point needs at least MinN = 6 repeats that count before it can stop.
//
// The package is pure and imports only the standard library: the agent, which runs the loop on the board,
// and the report, which prints the precision each point reached, share it.
package precision
