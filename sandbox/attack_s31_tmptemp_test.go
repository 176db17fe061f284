package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// programTmpDirs lists each directory once, none beneath another, and
// leaves out relative values and the system's directories.
func TestProgramTmpDirsNested(t *testing.T) {
	base, err := evalDir(t.TempDir())
	require.NoError(t, err)
	sub := filepath.Join(base, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))
	for _, c := range []struct{ tmpdir, temp, tmp string }{
		{base, sub, base},
		{sub, base, ""},
		{"", sub, base},
		{base, "rel/tmp", "/usr"},
	} {
		t.Setenv("TMPDIR", c.tmpdir)
		t.Setenv("TEMP", c.temp)
		t.Setenv("TMP", c.tmp)
		got := programTmpDirs()
		switch {
		case c.tmpdir == "" && beneath("/tmp", base): // t.TempDir's, /tmp stands for it
			assert.Equal(t, []string{"/tmp"}, got, "%+v", c)
		case c.tmpdir == "":
			assert.Equal(t, []string{"/tmp", base}, got, "%+v", c)
		default:
			assert.Equal(t, []string{base}, got, "%+v", c)
		}
	}
}

// Beside TMPDIR (TestAttackS31CommandReadsTheProgramsTmpdir): with TMPDIR
// unset, Python's tempfile (and programs ported from Windows, Java's
// launchers on some CIs) makes its files where TEMP or TMP points, so what
// the user's other programs leave there (a Kerberos ticket cache, a file
// in ssh-agent's directory, another run's private directory) stayed
// readable to a command of that user when it lies outside the host's
// /tmp, on every engine.
func TestAttackS31CommandReadsTheProgramsTempAndTmp(t *testing.T) {
	requireRoot(t) // it plants files owned by another user
	ws := workspaceDir(t)
	base, files := s31HostTmpdir(t)
	require.False(t, strings.HasPrefix(ws, base+"/"))
	t.Setenv("TMPDIR", "")
	script := `for f in "$@"; do cat "$f"; done; echo end`

	for _, v := range []string{"TEMP", "TMP"} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(v, base)
			// The control: the process engine as that user reads every file.
			o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User)), script, files...)
			require.Equal(t, len(files), strings.Count(string(o.Stdout), "TMPDIRSECRET"), "the control did not read every file of %v", files)
			for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
				t.Run(name, func(t *testing.T) {
					o := sh(t, engine(t, name, WithWorkspace(ws), WithUser(s30User, s30User)), script, files...)
					require.Contains(t, string(o.Stdout), "end", "the attack did not run")
					n := strings.Count(string(o.Stdout), "TMPDIRSECRET")
					assert.Zero(t, n, "a %s command read %d of the %d files in the program's %s %s", name, n, len(files), v, base)
				})
				// A workspace inside it stays the command's, and shows
				// alone there on bwrap and gvisor.
				t.Run(name+", workspace inside", func(t *testing.T) {
					inner, err := os.MkdirTemp(base, "ws-")
					require.NoError(t, err)
					require.NoError(t, os.Chown(inner, s30User, s30User))
					o := sh(t, engine(t, name, WithWorkspace(inner), WithUser(s30User, s30User)), `echo ok > made && cat made; cat "$@"`, files...)
					assert.Equal(t, "ok\n", string(o.Stdout))
				})
			}
		})
	}
}
