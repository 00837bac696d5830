//go:build !race

package stats

// raceDetector is true under -race, where the statistical tests draw fewer histories (ten times slower each).
const raceDetector = false
