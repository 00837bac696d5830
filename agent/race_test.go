//go:build race

package agent

// raceDetector is true under -race, where the flood tests read fewer records (each costs ten times more).
const raceDetector = true
