//go:build !race

package emily_test

// raceDetector: see race_on_test.go.
const raceDetector = false
