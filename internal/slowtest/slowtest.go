// Package slowtest keeps the tests that take more than a few seconds (whole
// generated fleets, large corpora replayed under every policy) out of a
// plain `go test ./...`, so that it stays about a minute on two cores. They
// run when SPILLWAY_SLOW_TESTS=1, as CI's slow-test step runs them.
package slowtest

import (
	"os"
	"testing"
)

// Env is the variable that opts in to the slow tests.
const Env = "SPILLWAY_SLOW_TESTS"

// OptIn skips t unless SPILLWAY_SLOW_TESTS=1; why says what makes it slow.
func OptIn(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(Env) != "1" {
		t.Skipf("slow (%s): %s=1 runs it", why, Env)
	}
}
