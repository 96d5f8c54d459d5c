//go:build race

package emily_test

// raceDetector: built with -race, where sync.Pool drops a share of what
// is put back on purpose, so allocation counts of pooled paths run high.
const raceDetector = true
