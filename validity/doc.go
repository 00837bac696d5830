// Package validity turns the evidence an agent collects around each point (protocol.Evidence) into a verdict
// a lab can trust: ok, suspect or invalid, with reasons in plain words. A busy, throttled or mis-clocked board
// is "invalid", not a regression; what a board does not expose is unknown and never counts against it.
//
// The rules, and the limits they use (DefaultLimits scales them with the core count), are documented on Judge
// and Limits. It is pure: no I/O, no clock.
package validity
