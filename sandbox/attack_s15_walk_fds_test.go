package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openUnder lists the descriptors of this process that name a path under
// dir: what a walk of a workspace in dir left open. Counting all of
// /proc/self/fd would count other tests' descriptors too.
func openUnder(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && (target == dir || strings.HasPrefix(target, dir+"/")) {
			open = append(open, target)
		}
	}
	return open
}

// A walk holds a descriptor for each directory it is inside of (and
// OpenEntry one for the file it opens): however it ends deep in a tree
// (fs.SkipAll, an error of fn, a panic in fn, the context cancelled, as
// search_files sees it), none is left open. Not a break found: this pins
// it, since the walk now holds descriptors where it held none.
func TestAttackS15WalkLeavesNoDescriptorOpen(t *testing.T) {
	errStop := errors.New("stop")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name string
		stop func() error // what fn does at the deepest file
	}{
		{"SkipAll", func() error { return fs.SkipAll }},
		{"an error", func() error { return errStop }},
		{"a panic", func() error { panic(errStop) }},
		{"the context cancelled", func() error { cancel(); return ctx.Err() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, _ := newTestWorkspace(t)
			deepest := mkChain(t, ws.Dir(), 40)
			before := openUnder(t, ws.Dir()) // the workspace's own root
			var walkErr error
			func() {
				defer func() {
					if r := recover(); r != nil {
						walkErr = r.(error)
					}
				}()
				walkErr = ws.Walk(".", func(p string, d fs.DirEntry, err error) error {
					require.NoError(t, err, p)
					if !d.Type().IsRegular() {
						return nil
					}
					f, err := ws.OpenEntry(p, d)
					require.NoError(t, err, p)
					defer f.Close()
					if filepath.Join(ws.Dir(), p) == filepath.Join(deepest, "f") {
						require.Len(t, openUnder(t, ws.Dir()), len(before)+40+2, "the walk holds . and 40 directories, and the file")
						return tc.stop()
					}
					return nil
				})
			}()
			if tc.name != "SkipAll" {
				require.Error(t, walkErr)
			}
			assert.Equal(t, before, openUnder(t, ws.Dir()), "descriptors left open after the walk")
		})
	}
}
