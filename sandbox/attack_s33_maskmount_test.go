package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Spec.Mask hid a workspace's forbidden paths only at the workspace's own
// path. A host that also shows the workspace, or a directory above it,
// at another place (a bind mount in fstab, a project directory bound into
// /srv for a service, the disk mounted twice) showed them there: bwrap
// and gvisor bind the host's mounts with its root, read-only, and a
// command read the masked file and the masked directory's key through the
// other place, as the home's credential stores were read before
// (TestAttackS29CommandReadsTheHomeThroughAnotherMount). An ordinary file
// of the workspace stays readable there.
func TestAttackS33MaskedPathThroughAnotherMount(t *testing.T) {
	requireRoot(t) // it mounts on the host; hostDir is readable by 65534 only for root
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.MkdirAll(filepath.Join(ws, "conf", "secrets"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "secret.env"), []byte("MASKSECRET env\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "conf", "secrets", "key"), []byte("MASKSECRET key\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "README"), []byte("ORDINARY\n"), 0o644))
			// The workspace bound at another place, its parent at a third,
			// and the workspace again inside the program's $TMPDIR, which
			// both engines mask whole (a run that failed once the other
			// places were masked: bwrap could not make a file's mount point
			// in that read-only directory).
			alt := filepath.Join(hostDir(t), "srv", "proj")
			require.NoError(t, os.MkdirAll(alt, 0o755))
			up := hostDir(t)
			tmp := hostDir(t)
			inTmp := filepath.Join(tmp, "proj")
			require.NoError(t, os.Mkdir(inTmp, 0o755))
			for _, m := range []struct{ src, dst string }{{ws, alt}, {filepath.Dir(ws), up}, {ws, inTmp}} {
				require.NoError(t, unix.Mount(m.src, m.dst, "", unix.MS_BIND, ""))
				t.Cleanup(func() { unix.Unmount(m.dst, unix.MNT_DETACH) })
			}
			t.Setenv("TMPDIR", tmp)
			script := `cat secret.env conf/secrets/key
for d in "$@"; do cat "$d/secret.env" "$d/conf/secrets/key" "$d/README"; done; echo end`
			sb := engine(t, eng, WithWorkspace(ws))
			o := s33Run(t, sb, Spec{
				Argv: []string{"sh", "-c", script, "sh", alt, filepath.Join(up, filepath.Base(ws)), inTmp},
				Mask: []string{"secret.env", "conf/secrets"},
			})
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the attack did not run")
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files through another mount of the workspace", strings.Count(out, "MASKSECRET"))
			assert.Equal(t, 2, strings.Count(out, "ORDINARY"), "a command could not read an ordinary file of the workspace through the other mounts")
		})
	}
}

// s33MaskedRunner opens a workspace in a fresh directory with deny rules
// and returns the directory and a function that runs a script there in
// engine eng, masked as Workspace.Masked says just before each run.
func s33MaskedRunner(t *testing.T, eng string, deny ...string) (dir string, run func(script string) *Outcome) {
	t.Helper()
	dir = workspaceDir(t)
	ws, err := OpenWorkspace(dir, WithDeny(deny...))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	sb := engine(t, eng, WithWorkspace(dir))
	return dir, func(script string) *Outcome {
		mask, err := ws.Masked()
		require.NoError(t, err)
		return s33Run(t, sb, Spec{Argv: []string{"sh", "-c", script}, Mask: mask})
	}
}

// s33Run runs spec through sb (a 30 s timeout unless it has one) and
// returns the outcome whatever the command's exit.
func s33Run(t *testing.T, sb Sandbox, spec Spec) *Outcome {
	t.Helper()
	if spec.Limits.Timeout == 0 {
		spec.Limits.Timeout = 30 * time.Second
	}
	out, err := sb.Run(context.Background(), spec)
	require.NotNil(t, out, "%v", err)
	t.Logf("%q\nstdout: %s\nstderr: %s", spec.Argv, out.Stdout, out.Stderr)
	return out
}
