// Package fleet is the controller: transports (local and ssh), the agent build cache and cross-compilation,
// deployment, and orchestration of sweeps across boards with bounded concurrency, timeouts and cancellation.
// It hands what boards produce to a Sink and never renders output or writes SQL. ReadReference reads vendors'
// published tables (fleet import --reference) through package reftable, for the store to keep as a reference run.
package fleet
