package sandbox

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A directory the walk holds open can be moved while the walk is inside
// it: under a hidden directory, or out of the workspace (a command does
// it with mv; with the process engine, or a host process, out of it too).
// Its descriptor follows it, so everything the walk lists or opens from
// it afterwards is really at the new place, and was judged under the old
// name. Walked by path (before a930a13 and 492f517), what was below the
// old name was gone (not found), and what Open reached was judged on the
// path it really has (/proc/self/fd).
//
// The attack: while the walk is at w/a/a1 (a has a subdirectory z it has
// not yet gone into, and a file zz it has listed but not opened), a
// command moves w/a to a hidden place (secret/a) or out of the workspace
// (outside/a); then whatever puts secrets there (an agent writing keys,
// a person) writes secret/a/z/key and secret/a/zz. The walk goes on from
// a's descriptor: it lists w/a/z/key, and search_files' OpenEntry reads
// both. The model never sees a hidden or outside file's content, nor a
// name under a hidden path.
func TestAttackS15WalkOfADirectoryMovedAway(t *testing.T) {
	hide := func(rel, _ string) string {
		if rel == "secret" || strings.HasPrefix(rel, "secret/") {
			return "test hides secret"
		}
		return ""
	}
	for _, tc := range []struct {
		name string
		from string                           // the directory moved: w/a, or w, where the walk starts
		to   func(dir, outside string) string // where it is moved
	}{
		{"under a hidden directory", "w/a", func(dir, _ string) string { return filepath.Join(dir, "secret", "a") }},
		{"out of the workspace", "w/a", func(_, outside string) string { return filepath.Join(outside, "a") }},
		{"the start, under a hidden directory", "w", func(dir, _ string) string { return filepath.Join(dir, "secret", "w") }},
		{"the start, out of the workspace", "w", func(_, outside string) string { return filepath.Join(outside, "w") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, outside := newTestWorkspace(t, WithHide(hide))
			dir := ws.Dir()
			for _, p := range []string{"secret/.keep", "w/a/a1", "w/a/z/old", "w/a/zz", "w/b"} {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("public "+p), 0o644))
			}
			to := tc.to(dir, outside)
			a := filepath.Join(to, strings.TrimPrefix("w/a", tc.from)) // where w/a is then
			var read, listed []string
			dirErrs := map[string]error{}
			_, err := ws.WalkHidden("w", func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					dirErrs[p] = err
					return fs.SkipDir
				}
				listed = append(listed, p)
				if p == "w/a/a1" {
					// The command moves a (or w) away; then a secret is
					// written where it now is.
					require.NoError(t, os.Rename(filepath.Join(dir, tc.from), to))
					require.NoError(t, os.WriteFile(filepath.Join(a, "z", "key"), []byte("SECRET key"), 0o600))
					require.NoError(t, os.WriteFile(filepath.Join(a, "zz.new"), []byte("SECRET zz"), 0o600))
					require.NoError(t, os.Rename(filepath.Join(a, "zz.new"), filepath.Join(a, "zz")))
				}
				if !d.Type().IsRegular() {
					return nil
				}
				f, err := ws.OpenEntry(p, d)
				if err != nil {
					return nil // search_files skips a file it cannot open
				}
				data, err := io.ReadAll(f)
				f.Close()
				require.NoError(t, err)
				read = append(read, string(data))
				return nil
			})
			require.NoError(t, err)
			for _, s := range read {
				assert.NotContains(t, s, "SECRET", "the walk read a file that was really at %s", to)
			}
			assert.NotContains(t, listed, "w/a/z/key", "the walk listed a name that was really under %s", to)
			assert.Contains(t, listed, "w/b", "the walk goes on beside the moved directory")
			for p, e := range dirErrs {
				assert.NotContains(t, e.Error(), "secret", "the error for %s names the hidden path", p)
				assert.NotContains(t, e.Error(), outside, "the error for %s names the outside path", p)
			}
			t.Logf("listed %q; read %q; directory errors %v", listed, read, dirErrs)
		})
	}
}
