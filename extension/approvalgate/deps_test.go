package approvalgate_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The approval extension does not pull OpenTelemetry into a program: the
// tracing extension makes its span from the approval events.
func TestNoTracingLibraryInTheImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, dep := range strings.Fields(string(out)) {
		require.False(t, strings.HasPrefix(dep, "go.opentelemetry.io/"), "extension/approvalgate imports %s", dep)
	}
}
