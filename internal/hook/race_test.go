//go:build race

package hook

// underRace says the tests run under the race detector.
const underRace = true
