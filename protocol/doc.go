// Package protocol holds the types every side of fleet shares: what the agent sends (Hello, Facts, Point, Skip,
// Raw, Log, Done) and the JSON-lines codec that carries them, what the controller sends (Plan), the mode names
// (ModeSoft, ModeCPU, …, with the checklist for adding one), the default block sizes and the run/board Status.
//
// It is a leaf: the standard library only, no other package of this module. The agent is cross-compiled with it
// for ARMv5 boards; store, report, inventory and the CLI read its types without importing the agent.
package protocol
