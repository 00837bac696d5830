// Package repotext holds checks on the repository's own text: its comments, READMEs and scripts, and the size
// of its Go files and functions (TestModuleLayout, with the list of those over the limits and why). It has no
// code; its tests walk the tree from the module root.
package repotext
