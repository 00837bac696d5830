// Package report turns measurements into statistics (median, spread, Mann-Whitney U, crossover, regressions)
// and renders them as text, Markdown, CSV, JSON, HTML with SVG charts, and JUnit XML. It never touches the network
// or the database: it reads plain data types. The math that needs neither (median, U test, Student's t, the
// change search) is in report/stats, which imports only the standard library.
//
// The statistics follow benchstat: a sample is the repeats of one (board, mode, algorithm, op, size, threads);
// it is summarized as median ±spread (n), where the spread is the larger relative distance of the minimum or
// maximum from the median; two samples are compared with the two-sided Mann-Whitney U test at α = 0.05 and a
// difference that is not significant prints as "~". When no outcome of the two sample sizes could reach α (3 + 3,
// 1 + 10; not 4 + 4 or 2 + 8: stats.MinP) the verdict says so ("unconfirmed"). Points of different runs are only
// pooled with a warning, or, for a baseline window of a label's last runs, with a note saying which runs.
//
// Entry points, one per command:
//
//   - Compare, WriteCompare and WriteCompareLayout: the vendor-guide tables (fleet compare), with speedups,
//     crossovers and CPU %. The default text fits a terminal (per board, then boards against each other at one
//     block size); Layout.Wide, Markdown and CSV give the full tables.
//   - CompareReference, WriteReference and ReferenceHTML: measured series beside a vendor's published table
//     (fleet compare --reference), matched by mode (the table's "accelerator" beside every accelerated mode),
//     algorithm, size, threads and board; % of the published figure and the published CPU % beside fleet's.
//   - Regress, WriteRegression and WriteJUnit: verdicts against a baseline (fleet regress). HasRegression
//     decides the exit code: regressed, regressed (unconfirmed) and missing all count. ConfirmTargets,
//     PlanConfirm (the sweep and boards of --confirm) and Confirm: the re-measure and its verdicts.
//   - Changes and WriteChanges: change points over each series' history (fleet changes), deterministic t-test
//     splits from report/stats (its changes.go says why), with the board facts that changed at each.
//   - WriteHTML: one self-contained page with inline SVG charts (fleet report).
//   - WriteRuns, WriteResults, WriteHistory, WriteRunDetail (WriteRunSummary as text), WriteImport and WriteSweep
//     (WriteSweepTables as text): the query commands, import's dry run and the end of fleet run.
//
// Each of these is a View, which lists its output formats (View.Formats) in one place: its Write function refuses
// any other, and the command line builds its --format flags from the same list.
//
// Files follow the views: a view's model, its text, CSV and JSON sit in one file (or a prefix of files) —
// compare*.go (compare_write.go: WriteCompare and its CSV; compare_speedup.go: the accelerators' speedups over the
// CPU paths, their geomeans and crossovers; compare_compact.go and compare_boards.go: the default text layout's
// per-board and board-against-board tables), regress*.go (regress_write.go: WriteRegression and its CSV;
// regress_judge.go: the verdict on one series), reference*.go, changes*.go, history*.go, ssh*.go, listing_runs.go
// (WriteRuns), listing_results.go (WriteResults), listing_import.go (WriteImport), listing_sweep.go (WriteSweep,
// WriteSweepTables), run_detail.go (WriteRunDetail, WriteRunSummary), boards.go, junit.go (WriteJUnit). What every
// view uses: samples.go (SampleKey, Sample, Group and the order of series), formats.go (views and formats),
// units.go, metric.go (what regress and changes judge by: throughput, or energy's µJ/B, lower better),
// energy_chart.go (the dashboard's µJ/B charts; compare_energy.go is compare's energy columns and crossover),
// precision.go (adaptive repeats' marks), validity*.go (a cell's marks, a run's state beside its points' verdicts),
// printable.go and openssl_reason.go (a board's text made safe to print, OpenSSL's errors in words: PlainReason),
// facts*.go, kernel.go and environment.go (a board run's facts, kernel health and what changed between runs),
// table*.go, chart*.go and render_*.go (the document, its fitting to 100 columns, its SVG charts and its text,
// Markdown, HTML and JSON writers), fragments.go (the same tables and charts for fleet serve).
package report
