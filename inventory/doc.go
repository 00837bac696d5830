// Package inventory reads boards.toml: the boards, their defaults, sweep profiles, validation with file:line:column
// errors, and board selection (--boards, --tag, --all).
package inventory
