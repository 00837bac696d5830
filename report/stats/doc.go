// Package stats is the pure statistics of fleet's verdicts: the median, the Mann-Whitney U test that regress and
// compare judge samples with, Student's t distribution, and the change-point search that changes runs over a
// series' history. It imports nothing but the standard library and knows nothing of measurements, runs or
// stores: callers hand it plain float64 slices, so the math can be tested on known truth alone.
//
// Files:
//
//   - median.go: Median, Sorted, MADOfDifferences (the robust run-to-run noise of a series);
//   - utest.go: UTest, the two-sided Mann-Whitney U test as benchstat computes it, and MinP, the smallest p two
//     sample sizes can reach;
//   - studentt.go: StudentTwoSidedP from the regularized incomplete beta function;
//   - changes.go: ChangePoints, the deterministic change-point search (why this method: its doc comment);
//   - changes_arcs.go: its segmentation, circular binary segmentation, which finds pulses as well as steps;
//   - changes_robust.go: busy nights clipped (clipOutliers), the MAD, and the Hodges–Lehmann step by selection.
package stats
