package interop_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when one of them leaves a goroutine
// running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
