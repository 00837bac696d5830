// Package repotext holds checks on the repository's own text: its comments, READMEs and scripts. It has no
// code; its test walks the tree from the module root.
package repotext
