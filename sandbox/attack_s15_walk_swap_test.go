package sandbox

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// What a command swaps in between the listing and the walk's next step
// neither blocks it nor is read: a FIFO (which an open for reading without
// O_NONBLOCK would wait on for a writer, for ever) or a unix socket for a
// directory the walk is about to go into, and for a file OpenEntry is
// about to open. Not a break found: this pins it. A test that blocks is
// cut by the test timeout.
func TestAttackS15WalkSwapsDoNotBlock(t *testing.T) {
	swapIn := map[string]func(p string) error{
		"a FIFO": func(p string) error { return unix.Mkfifo(p, 0o644) },
		"a socket": func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		},
	}
	for kind, swap := range swapIn {
		t.Run(kind, func(t *testing.T) {
			// The socket's path must fit in 108 bytes: a short temp dir.
			base, err := os.MkdirTemp("", "s15")
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(base) })
			ws, err := OpenWorkspace(base)
			require.NoError(t, err)
			t.Cleanup(func() { ws.Close() })
			for _, p := range []string{"d/x", "f"} {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(base, p)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(base, p), []byte("x"), 0o644))
			}
			errs := map[string]error{}
			require.NoError(t, ws.Walk(".", func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					errs[p] = err
					return nil
				}
				switch p {
				case "d": // listed as a directory; swapped before the walk goes in
					require.NoError(t, os.RemoveAll(filepath.Join(base, p)))
					require.NoError(t, swap(filepath.Join(base, p)))
				case "f": // listed as a file; swapped before it is opened
					require.NoError(t, os.Remove(filepath.Join(base, p)))
					require.NoError(t, swap(filepath.Join(base, p)))
					f, err := ws.OpenEntry(p, d)
					if err == nil {
						f.Close()
					}
					errs[p] = err
				}
				return nil
			}))
			assert.ErrorIs(t, errs["d"], ErrFilesystemPolicy, "the walk went into what was swapped in for d")
			require.Error(t, errs["f"], "OpenEntry opened what was swapped in for f")
			assert.True(t, errors.Is(errs["f"], ErrNotRegular) || errors.Is(errs["f"], unix.ENXIO), "%v", errs["f"])
		})
	}
}
