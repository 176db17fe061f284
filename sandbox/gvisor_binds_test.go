package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGVisorRefusesMoreBindsThanRunscStarts: runsc hands its sandbox a
// descriptor per bind mount, below the one (256) where it moves the
// container's stdio. A run whose masks needed 239 binds (119 masked files,
// each in a directory of its own, pinned) never started: the command
// "exited" with status 128 and runsc said only, on its stderr, that it
// could not read its client sync file. [MaxMasked] promises 1,024. Such a
// run is refused before runsc starts, with ErrInvalidSpec and a message
// that says how many binds it needs and how to need fewer; a run of 60
// such masks still starts, and hides what it masks.
func TestGVisorRefusesMoreBindsThanRunscStarts(t *testing.T) {
	requireRoot(t)
	ws := workspaceDir(t)
	mask := func(n int) []string {
		var m []string
		for i := range n {
			d := fmt.Sprintf("d%04d", i)
			require.NoError(t, os.MkdirAll(filepath.Join(ws, d), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, d, "s.env"), []byte("MASKSECRET\n"), 0o644))
			m = append(m, d+"/s.env")
		}
		return m
	}
	sb := engine(t, EngineGVisor, WithWorkspace(ws))

	o, err := sb.Run(t.Context(), Spec{Argv: []string{"sh", "-c", "cat d0000/s.env; echo started"}, Mask: mask(60)})
	require.NoError(t, err, "60 masked files in 60 directories")
	require.Contains(t, string(o.Stdout), "started")
	require.NotContains(t, string(o.Stdout), "MASKSECRET")

	_, err = sb.Run(t.Context(), Spec{Argv: []string{"true"}, Mask: mask(130)})
	require.Error(t, err, "130 masked files in 130 directories")
	require.True(t, errors.Is(err, ErrInvalidSpec), "want ErrInvalidSpec, got %v", err)
	require.ErrorContains(t, err, "bind mounts")
	require.ErrorContains(t, err, "bwrap")
}
