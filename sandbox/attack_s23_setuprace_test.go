package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bwrap binds the directories above a masked path over themselves (each a
// mount point no command can rename, see maskParents) and the repository's
// .git read-only (repoDirs), from the paths it is given. The engine checks
// that each is a directory, not a symlink, when it plans the run; bwrap
// mounts a moment later, and resolves the source on the host then. Another
// command at work in the same workspace (a run whose mask does not cover
// that directory) that swaps the directory for a relative symlink out of
// the workspace in between has the host directory the link reaches bound
// into the run: writable for a masked path's parent, read-only for .git.
// The test makes the swap deterministic: it plans the run, swaps, then
// starts the planned command. (Seen succeeding first: the command read the
// host directory through conf/ and .git/ and wrote in it through conf/,
// from the workspace's own path and from an idmapped copy. bwrap now gets
// the directories as descriptors opened without following a symlink, see
// pins, and refuses to start when a path no longer leads to them.)
func TestAttackS23SwapAfterThePlan(t *testing.T) { swapAfterThePlan(t, EngineBwrap, false) }

// swapAfterThePlan plans a run of engine name, swaps a directory it binds
// over itself for a symlink out of the workspace, then starts the run.
// With late, the swap is made by the process that the plan starts, just
// before it executes the engine: once the plan's own start (p.start) has
// done its part.
func swapAfterThePlan(t *testing.T, name string, late bool) {
	requireRoot(t) // openDir is outside /tmp only for root
	cases := []struct {
		name, dir string
		mask      []string
		idmapped  bool
	}{
		{"parent of a masked path", "conf", []string{"conf/secrets"}, false},
		{"repository directory", ".git", nil, false},
		{"parent of a masked path, idmapped", "conf", []string{"conf/secrets"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := workspaceDir(t)
			if c.idmapped {
				// Root's, bound from an idmapped copy at
				// /tmp/toolbelt-idmap-N-locked/ws: at the same depth, the
				// relative link leads to the same directory from both.
				ws = filepath.Join(ws, "sub")
				require.NoError(t, os.Mkdir(ws, 0o777))
				require.NoError(t, os.Chmod(ws, 0o777))
			} else {
				// The command's user owns it, as a developer's own bwrap
				// runs do: bwrap binds it from its path.
				require.NoError(t, os.Chown(ws, nobody, nobody))
			}
			outside := openDir(t) // writable by the run's user as far as file modes go
			require.NoError(t, os.WriteFile(filepath.Join(outside, "host-file"), []byte("HOST CONTENT\n"), 0o644))
			// Where a mask goes over the swapped directory: runsc, which
			// makes a missing mount point, failed without it.
			require.NoError(t, os.Mkdir(filepath.Join(outside, "secrets"), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(ws, c.dir, "secrets"), 0o777))
			require.NoError(t, os.WriteFile(filepath.Join(ws, c.dir, "secrets", "key"), []byte("SECRET\n"), 0o644))
			sb := engine(t, name, WithWorkspace(ws))
			b := baseOf(sb)
			spec := Spec{
				Argv: []string{"sh", "-c", `cat "$1/host-file" 2>/dev/null; echo x > "$1/escaped" && echo WROTE; echo end`, "sh", c.dir},
				Mask: c.mask,
			}
			p, lim, err := b.build(spec)
			require.NoError(t, err)
			if p.cleanup != nil {
				defer p.cleanup()
			}

			// What a concurrent command does between the plan and the mounts.
			rel, err := filepath.Rel(ws, outside)
			require.NoError(t, err)
			if late {
				p.argv = append([]string{"sh", "-c", `mv "$1" "$1.moved" && ln -s "$2" "$1" && shift 2 && exec "$@"`, "sh", filepath.Join(ws, c.dir), rel}, p.argv...)
			} else {
				require.NoError(t, os.Rename(filepath.Join(ws, c.dir), filepath.Join(ws, c.dir+".moved")))
				require.NoError(t, os.Symlink(rel, filepath.Join(ws, c.dir)))
			}

			// bwrap now refuses to start ("Race condition binding
			// dirfd"), runsc cannot find the pinned tree under the link:
			// failing is fine, binding the host directory is not.
			out, err := execute(context.Background(), b.name, p, lim, nil)
			if out == nil {
				// runsc is not started: the name no longer leads to a
				// directory when its pinned mount is made.
				require.Error(t, err)
				t.Logf("err %v", err)
				assert.NoFileExists(t, filepath.Join(outside, "escaped"))
				return
			}
			t.Logf("err %v\nstdout: %s\nstderr: %s", err, out.Stdout, out.Stderr)
			assert.NotContains(t, string(out.Stdout), "HOST CONTENT", "the run read the host directory the swapped link leads to")
			assert.NoFileExists(t, filepath.Join(outside, "escaped"), "the run wrote in the host directory")
			if strings.Contains(string(out.Stdout), "WROTE") {
				// runsc mounts the pinned directory where the link leads
				// in the run: the write went to the workspace's own
				// directory, moved aside, and only for the writable one.
				assert.NotEqual(t, ".git", c.dir, "the repository directory was writable")
				assert.FileExists(t, filepath.Join(ws, c.dir+".moved", "escaped"), "the run wrote elsewhere than in the directory the plan checked")
			}
		})
	}
}

// The directories bwrap binds by descriptor (pins) are bound as before,
// writable above a masked path, read-only for .git, with the mask over
// them, from the workspace's own path and from an idmapped copy; and no
// descriptor of theirs reaches the command.
func TestBwrapPinnedBindsWork(t *testing.T) { pinnedBindsWork(t, EngineBwrap, "fds [0, 1, 2, 3]\n") }

// pinnedBindsWork runs engine name's pinned binds, and checks the
// descriptors the command has against fds.
func pinnedBindsWork(t *testing.T, name, fds string) {
	needPython(t)
	for _, idmapped := range []bool{false, true} {
		t.Run(map[bool]string{false: "own workspace", true: "idmapped workspace"}[idmapped], func(t *testing.T) {
			ws := workspaceDir(t) // root's: bound idmapped when the tests run as root
			if !idmapped {
				if os.Geteuid() != 0 {
					t.Skip("the workspace is the caller's own already")
				}
				require.NoError(t, os.Chown(ws, nobody, nobody))
			} else {
				requireRoot(t)
			}
			for _, d := range []string{".git", "conf", "conf/secrets"} {
				require.NoError(t, os.MkdirAll(filepath.Join(ws, d), 0o777))
				require.NoError(t, os.Chmod(filepath.Join(ws, d), 0o777)) // past the umask
			}
			require.NoError(t, os.WriteFile(filepath.Join(ws, "conf", "secrets", "key"), []byte("SECRET\n"), 0o644))
			sb := engine(t, name, WithWorkspace(ws))
			out, err := sb.Run(context.Background(), Spec{
				Argv: []string{"sh", "-c", `echo x > conf/made && echo CONF-WRITABLE
echo x > .git/made && echo GIT-WRITABLE
cat conf/secrets/key
python3 -c 'import os; print("fds", sorted(int(x) for x in os.listdir("/proc/self/fd")))'`},
				Mask: []string{"conf/secrets"},
			})
			require.NoError(t, err, "%+v", out)
			t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
			stdout := string(out.Stdout)
			assert.Contains(t, stdout, "CONF-WRITABLE\n")
			assert.NotContains(t, stdout, "GIT-WRITABLE")
			assert.NotContains(t, stdout, "SECRET")
			assert.Contains(t, stdout, fds, "a pinned directory's descriptor reached the command")
			assert.FileExists(t, filepath.Join(ws, "conf", "made"))
		})
	}
}
