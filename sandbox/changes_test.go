package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tracked run lists what it created, modified and deleted in the
// workspace, with every engine, and nothing it left alone: also a file
// rewritten to the same size with its modification time set back, and a
// mode change.
func TestTrackChanges(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			sb := engine(t, name, WithWorkspace(ws))
			ctx := context.Background()
			// The files are the sandbox user's own, made by an untracked run.
			setup, err := sb.Run(ctx, Spec{Argv: []string{"sh", "-c", `
				echo keep > keep.txt; echo edit > edit.txt; echo gone > gone.txt
				echo mode > mode.txt; echo sneaky > sneaky.txt; touch -d 2001-02-03 sneaky.txt
				mkdir dir olddir; echo old > dir/old.txt; echo x > olddir/x`}})
			require.NoError(t, err, "%s", setup.Stderr)
			assert.Empty(t, setup.Changes, "an untracked run lists nothing")

			out, err := sb.Run(ctx, Spec{TrackChanges: true, Argv: []string{"sh", "-c", `
				set -e
				echo more >> edit.txt; rm gone.txt; chmod 600 mode.txt
				touch -d 2001-02-03 sneaky.txt; echo SNEAKY > sneaky.txt; touch -d 2001-02-03 sneaky.txt
				mkdir newdir; echo f > newdir/f; rm -r olddir; echo n > dir/new.txt
				cat keep.txt dir/old.txt >/dev/null`}})
			require.NoError(t, err, "%s", out.Stderr)
			assert.Empty(t, out.ChangesUntracked)
			assert.Equal(t, []Change{
				{"dir/new.txt", ChangeCreated},
				{"edit.txt", ChangeModified},
				{"gone.txt", ChangeDeleted},
				{"mode.txt", ChangeModified},
				{"newdir", ChangeCreated},
				{"newdir/f", ChangeCreated},
				{"olddir", ChangeDeleted},
				{"olddir/x", ChangeDeleted},
				{"sneaky.txt", ChangeModified},
			}, out.Changes)

			out, err = sb.Run(ctx, Spec{TrackChanges: true, Argv: []string{"cat", "keep.txt"}})
			require.NoError(t, err)
			assert.Empty(t, out.Changes, "a run that only reads changes nothing")
		})
	}
}

// A failed run's changes are listed too: a command that deletes and then
// fails still deleted.
func TestTrackChangesOfAFailedRun(t *testing.T) {
	ws := workspaceDir(t)
	sb := engine(t, EngineProcess, WithWorkspace(ws))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a"), []byte("a"), 0o666))
	out, err := sb.Run(context.Background(), Spec{TrackChanges: true, Argv: []string{"sh", "-c", "rm -f a; exit 3"}})
	require.Error(t, err)
	require.NotNil(t, out)
	assert.Equal(t, []Change{{"a", ChangeDeleted}}, out.Changes)
}

// Tracking needs a workspace: without one the run is refused before it
// starts, with the fix.
func TestTrackChangesNeedsAWorkspace(t *testing.T) {
	sb := engine(t, EngineProcess)
	_, err := sb.Run(context.Background(), Spec{TrackChanges: true, Argv: []string{"true"}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrInvalidSpec))
	assert.Contains(t, err.Error(), "TrackChanges needs a workspace")
}

// A workspace past MaxTrackedEntries is not tracked, and the outcome says
// why; a run that changes more than MaxChangesListed entries lists the
// first ones and counts the rest.
func TestTrackChangesBounds(t *testing.T) {
	ws := t.TempDir()
	for i := range MaxChangesListed + 5 {
		require.NoError(t, os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%05d", i)), nil, 0o644))
	}
	out, err := tracked(ws, func() (*Outcome, error) {
		for i := range MaxChangesListed + 5 {
			if err := os.Remove(filepath.Join(ws, fmt.Sprintf("f%05d", i))); err != nil {
				return nil, err
			}
		}
		return &Outcome{}, nil
	})
	require.NoError(t, err)
	assert.Len(t, out.Changes, MaxChangesListed)
	assert.Equal(t, 5, out.ChangesOmitted)
	assert.Equal(t, Change{"f00000", ChangeDeleted}, out.Changes[0])

	big := t.TempDir()
	for i := range MaxTrackedEntries + 1 {
		f, err := os.Create(filepath.Join(big, fmt.Sprint(i)))
		require.NoError(t, err)
		f.Close()
	}
	out, err = tracked(big, func() (*Outcome, error) { return &Outcome{}, nil })
	require.NoError(t, err)
	assert.Empty(t, out.Changes)
	assert.Contains(t, out.ChangesUntracked, fmt.Sprintf("more than %d entries", MaxTrackedEntries))
}
