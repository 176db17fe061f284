package sandbox

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run whose directory is gone (the workspace removed after New) says so,
// rather than that prlimit or the engine's binary does not exist: the
// kernel reports the child's failed chdir as the exec's ENOENT.
func TestMissingRunDirectoryIsNamed(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			dir := workspaceDir(t)
			sb := engine(t, name, WithWorkspace(dir))
			require.NoError(t, os.RemoveAll(dir))
			_, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}})
			require.ErrorIs(t, err, ErrCreateFailed)
			assert.Contains(t, err.Error(), "the run's directory "+`"`+dir+`"`+" does not exist")
			assert.NotContains(t, err.Error(), "prlimit")
		})
	}
}
