package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// countLookups returns how many path components ws looked up (lookupHook)
// while f ran.
func countLookups(t *testing.T, ws *Workspace, f func()) int {
	t.Helper()
	var n atomic.Int64
	h := func(w *Workspace, components int) {
		if w == ws {
			n.Add(int64(components))
		}
	}
	lookupHook.Store(&h)
	defer lookupHook.Store(nil)
	f()
	return int(n.Load())
}

// mkChain makes depth directories d/d/.../d under dir, each holding a file
// f, and returns the deepest.
func mkChain(t testing.TB, dir string, depth int) string {
	t.Helper()
	p := dir
	for range depth {
		p = filepath.Join(p, "d")
		require.NoError(t, os.Mkdir(p, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(p, "f"), nil, 0o644))
	}
	return p
}

// A walk looks each directory up once, from its parent's descriptor, so
// what it costs grows with the tree and not with each directory's depth.
// It opened each directory by its whole path from the workspace's root
// (resolved, then opened through os.Root, one component at a time): a
// chain of D directories cost D*(D+1) component lookups, and 30,000
// directories left 250 levels deep by a command made every later
// search_files about 11 times slower than a flat tree of as many. Counted,
// not timed: the lookups of a walk of chains 64 and 128 deep.
func TestWalkLooksUpEachDirectoryOnce(t *testing.T) {
	lookups := map[int]int{}
	for _, depth := range []int{64, 128} {
		ws, _ := newTestWorkspace(t)
		mkChain(t, ws.Dir(), depth)
		walked := 0
		lookups[depth] = countLookups(t, ws, func() {
			require.NoError(t, ws.Walk(".", func(p string, d fs.DirEntry, err error) error {
				require.NoError(t, err, p)
				walked++
				return nil
			}))
		})
		require.Equal(t, 2+2*depth, walked, "., ok.txt, and a directory and a file per level")
		t.Logf("a walk of a chain %d deep looked up %d path components", depth, lookups[depth])
		assert.LessOrEqual(t, lookups[depth], 2*depth, "a walk of a chain %d deep looked up %d path components: each directory's whole path again", depth, lookups[depth])
	}
	assert.LessOrEqual(t, lookups[128], 2*lookups[64]+4, "twice as deep cost %d lookups against %d: the cost grows with the square of the depth", lookups[128], lookups[64])
}

// OpenEntry opens a file the walk passes to fn from the directory the walk
// holds: a walk that opens every file it meets, as search_files does,
// costs one lookup per file however deep it lies. Open(rel) resolves and
// opens the whole path from the root again: with Walk fixed, a chain 128
// deep with a file at each level still cost 16,900 lookups that way.
func TestOpenEntryLooksUpTheFileOnce(t *testing.T) {
	const depth = 128
	ws, _ := newTestWorkspace(t)
	mkChain(t, ws.Dir(), depth)
	opened := 0
	n := countLookups(t, ws, func() {
		require.NoError(t, ws.Walk(".", func(p string, d fs.DirEntry, err error) error {
			require.NoError(t, err, p)
			if !d.Type().IsRegular() {
				return nil
			}
			f, err := ws.OpenEntry(p, d)
			require.NoError(t, err, p)
			opened++
			return f.Close()
		}))
	})
	require.Equal(t, 1+depth, opened)
	t.Logf("a walk that opened the %d files of a chain %d deep looked up %d path components", opened, depth, n)
	assert.LessOrEqual(t, n, 3*depth, "a walk that opened the %d files of a chain %d deep looked up %d path components", opened, depth, n)
}

// OpenEntry refuses what Open refuses, and is Open when it cannot open
// from the walk's directory: a FIFO or a hard link swapped in for the file
// after the listing is refused, a symlink swapped in is judged where it
// leads (a hidden file, refused), an entry kept after the walk, or one
// given with another path, is opened by its path.
func TestOpenEntryRefusesWhatOpenRefuses(t *testing.T) {
	hide := func(rel, _ string) string {
		if strings.HasPrefix(rel, "secret/") {
			return "test hides secret"
		}
		return ""
	}
	ws, _ := newTestWorkspace(t, WithHide(hide))
	dir := ws.Dir()
	for _, p := range []string{"secret/key", "w/fifo", "w/hard", "w/link", "w/plain"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644))
	}
	swap := map[string]func(p string) error{
		"w/fifo": func(p string) error { return errors.Join(os.Remove(p), unix.Mkfifo(p, 0o644)) },
		"w/hard": func(p string) error { return os.Link(p, filepath.Join(dir, "hard2")) },
		"w/link": func(p string) error { return errors.Join(os.Remove(p), os.Symlink("../secret/key", p)) },
	}
	got := map[string]error{}
	var kept fs.DirEntry
	require.NoError(t, ws.Walk("w", func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err, p)
		if !d.Type().IsRegular() {
			return nil
		}
		if s := swap[p]; s != nil {
			require.NoError(t, s(filepath.Join(dir, p)))
		}
		f, err := ws.OpenEntry(p, d)
		if err == nil {
			f.Close()
		}
		got[p] = err
		if p == "w/plain" {
			kept = d
		}
		return nil
	}))
	assert.ErrorIs(t, got["w/fifo"], ErrNotRegular)
	assert.ErrorIs(t, got["w/hard"], ErrHardLink)
	assert.ErrorIs(t, got["w/link"], ErrHidden)
	assert.NoError(t, got["w/plain"])

	require.NotNil(t, kept)
	f, err := ws.OpenEntry("w/plain", kept)
	require.NoError(t, err, "an entry kept after the walk is opened by its path")
	data, err := io.ReadAll(f)
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, "w/plain", string(data))
	_, err = ws.OpenEntry("secret/key", kept)
	assert.ErrorIs(t, err, ErrHidden, "the path given is the one opened and judged")
}

// A directory swapped for a symlink (or a file) after the walk listed it
// and before it goes down into it is not followed: not to / (out of the
// workspace), not to a hidden directory, and not to an ordinary one of
// the workspace, whose entries would be shown under the link's name. fn
// is told of it with an error, and the walk goes on. Walked by path, the
// link to an ordinary directory was followed (its entries listed as
// w/d/x.txt); the other two were refused by the resolution of the path.
func TestWalkDoesNotFollowADirectorySwappedForASymlink(t *testing.T) {
	hide := func(rel, _ string) string {
		if rel == "secret" || strings.HasPrefix(rel, "secret/") {
			return "test hides secret"
		}
		return ""
	}
	for _, tc := range []struct {
		name, target string // target "" swaps in a regular file
	}{
		{"to /", "/"},
		{"to a hidden directory", "../secret"},
		{"to a hidden directory, absolute", "SECRET"},
		{"to an ordinary directory", "../pub"},
		{"a file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, _ := newTestWorkspace(t, WithHide(hide))
			dir := ws.Dir()
			for _, p := range []string{"pub/x.txt", "secret/key.txt", "w/d/inner.txt", "w/z.txt"} {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644))
			}
			target := tc.target
			if target == "SECRET" {
				target = filepath.Join(dir, "secret")
			}
			var walked []string
			var dErr error
			_, err := ws.WalkHidden("w", func(p string, d fs.DirEntry, err error) error {
				if p == "w/d" && err != nil {
					dErr = err
					return nil
				}
				require.NoError(t, err, p)
				walked = append(walked, p)
				if p == "w/d" {
					// Listed as a directory; swapped before the walk goes in.
					require.True(t, d.IsDir())
					require.NoError(t, os.RemoveAll(filepath.Join(dir, "w/d")))
					if target == "" {
						require.NoError(t, os.WriteFile(filepath.Join(dir, "w/d"), []byte("x"), 0o644))
					} else {
						require.NoError(t, os.Symlink(target, filepath.Join(dir, "w/d")))
					}
				}
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, []string{"w", "w/d", "w/z.txt"}, walked, "the walk went into what was swapped in for w/d")
			require.Error(t, dErr, "fn is told w/d could not be walked")
			assert.ErrorIs(t, dErr, ErrFilesystemPolicy)
			assert.ErrorContains(t, dErr, `"w/d"`)
		})
	}
}

// A walk goes at most maxWalkDepth directories below where it starts: it
// holds a descriptor for each directory it is inside of. The directory
// past the bound is passed to fn with ErrTooLarge, and the walk goes on
// beside it; a walk that starts deeper goes deeper.
func TestWalkDepthBound(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	mkChain(t, ws.Dir(), maxWalkDepth+3)
	tooDeep := strings.TrimSuffix(strings.Repeat("d/", maxWalkDepth+1), "/")
	var errs []string
	deepest := 0
	require.NoError(t, ws.Walk(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			require.ErrorIs(t, err, ErrTooLarge, p)
			assert.ErrorContains(t, err, fmt.Sprintf("at most %d directories", maxWalkDepth))
			errs = append(errs, p)
			return nil
		}
		deepest = max(deepest, strings.Count(p, "/")+1)
		return nil
	}))
	assert.Equal(t, []string{tooDeep}, errs)
	assert.Equal(t, maxWalkDepth+1, deepest, "the entries of the last directory within the bound are listed, the one past it is passed to fn")

	var walked []string
	require.NoError(t, ws.Walk("d/d/d", func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err, p)
		walked = append(walked, p)
		return nil
	}))
	assert.Contains(t, walked, tooDeep+"/f", "a walk from d/d/d reaches what one from . does not")
}

// Rename judges every path below a directory it moves, holding a
// descriptor and the entries of each level: past maxWalkDepth levels it
// refuses, naming the bound, and moves nothing.
func TestRenameDepthBound(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	mkChain(t, ws.Dir(), maxWalkDepth+2)
	err := ws.Rename("d", "e")
	require.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, fmt.Sprintf("%d directories", maxWalkDepth))
	_, err = ws.Stat("d")
	require.NoError(t, err, "nothing was moved")

	require.NoError(t, os.RemoveAll(filepath.Join(ws.Dir(), "d")))
	mkChain(t, ws.Dir(), maxWalkDepth)
	require.NoError(t, ws.Rename("d", "e"), "a directory within the bound is moved")
}
