// Package capture reads measurements fleet did not take itself, for the store to keep: `openssl speed` output
// saved to files (fleet import) and vendors' published tables (fleet import --reference). It touches no board:
// the controller (package fleet) reaches boards, this package reads files, and both hand what they read to the
// store through a consumer-side interface (ImportSink here; store.ImportTx implements it without importing this
// package).
//
// Files:
//
//   - import.go: Import, its options, ImportSink and DiscardImport (a dry run), and runImport, one run being
//     read from one file or several: the series' repeats numbered across the run's files, a run per file
//     (PerFile) or per openssl command (Split), all or nothing (a failure rolls the sink back).
//   - import_raw.go: a capture's text kept as the run's raw outputs, in pieces of at most 1 MiB for a large one,
//     so that every point names the raw output its line is in; read in bounded memory, Ctrl-C heard between reads.
//   - import_env.go: what a capture says beside its numbers — the mode it decides (refused when --mode says
//     another), the OpenSSL environment of its commands (one per run, ErrMixedEnvironment otherwise), and the
//     validity of a CPU-timed line from its own CPU share.
//   - modes.go: the modes a capture (CheckMode) and a published table (CheckReferenceMode) may be stored under,
//     which Import and ReadReference enforce and fleet import checks its flags with.
//   - reference.go: ReadReference, vendors' tables parsed by package reftable, with each file's provenance
//     ("# source:" or --source), figures two files both give refused, and tables that cannot be read skipped
//     with a warning naming them.
//
// Parsing is not here: package opensslspeed reads openssl's output of every version, package reftable the
// published tables; this package decides what becomes a run.
package capture
