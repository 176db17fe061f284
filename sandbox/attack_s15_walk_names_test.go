package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The model never sees a hidden name, also not in an error. The walk
// stats each entry (fstatat) before the rules judge it, and the error of
// a stat named the entry: a directory a command made readable but not
// searchable (chmod 444, its own user's) failed on its first name,
// hidden or not, and list_directory and search_files hand the error of
// the directory they start at to the model (list_directory "w" answered
// `fstatat w/.env: permission denied`). Root enters every directory, so
// as root the test runs itself again as nobody.
func TestAttackS15WalkErrorNamesNoHiddenEntry(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t)
		return
	}
	hide := func(rel, _ string) string {
		if strings.HasSuffix(rel, "/aaa-forbidden") {
			return "test hides aaa-forbidden"
		}
		return ""
	}
	for _, hidden := range []string{".env", "aaa-forbidden"} {
		t.Run(hidden, func(t *testing.T) {
			ws, _ := newTestWorkspace(t, WithHide(hide))
			dir := ws.Dir()
			for _, p := range []string{"w/" + hidden, "w/pub.txt", "v/sub/" + hidden, "v/sub/pub.txt"} {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644))
			}
			for _, d := range []string{"w", "v/sub"} {
				require.NoError(t, os.Chmod(filepath.Join(dir, d), 0o444))
				t.Cleanup(func() { os.Chmod(filepath.Join(dir, d), 0o755) })
			}
			var errs []string
			for _, start := range []string{"w", "v"} {
				_, err := ws.WalkHidden(start, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						errs = append(errs, err.Error())
					}
					if p == start {
						return err // as list_directory and search_files do
					}
					return nil
				})
				if err != nil {
					errs = append(errs, err.Error())
				}
			}
			require.NotEmpty(t, errs, "a directory that cannot be searched is an error")
			for _, e := range errs {
				assert.NotContains(t, e, hidden, "an error names a hidden entry")
			}
			t.Logf("errors: %q", errs)
		})
	}
}
