package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Guards of the S33 review of the mask commits (7939f1b, 7c87d8c, 9941d9f,
// 989aab9): attacks that did not work.

// A hidden file's other hard link kept in the repository's git directory,
// which both engines bind read-only (repoDirs): a command that found no
// .env made one, git init, and ln .env .git/x; the next command, once the
// developer wrote the keys, finds .git/x masked too (the walk goes into
// .git like any directory), and the run starts (a mask in the read-only
// .git).
func TestAttackS33ReviewHardLinkInTheGitDir(t *testing.T) {
	requireRoot(t)
	if _, err := os.Stat("/usr/bin/git"); err != nil {
		t.Skip("no git")
	}
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			out := s33rLinkRun(t, eng, []string{"**/.env"},
				`git init -q . && : > .env && ln .env .git/x && mkdir -p .git/objects/zz && ln .env .git/objects/zz/y`,
				[]string{".env"},
				`cat .env .git/x .git/objects/zz/y; git status --porcelain >/dev/null && echo gitok`)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files through a link in .git", strings.Count(out, "MASKSECRET"))
			assert.Contains(t, out, "gitok", "git did not work in the run")
		})
	}
}

// Another mount of the workspace at a path with a space, a tab and a
// newline in it, which mountinfo writes escaped (\040, \011, \012):
// otherPaths finds it, and the masked paths are masked there too.
func TestAttackS33ReviewOtherMountWithEscapedCharacters(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.MkdirAll(filepath.Join(ws, "conf", "secrets"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "secret.env"), []byte("MASKSECRET env\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "conf", "secrets", "key"), []byte("MASKSECRET key\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "README"), []byte("ORDINARY\n"), 0o644))
			alt := filepath.Join(hostDir(t), "a b\tc\nd\\040e")
			require.NoError(t, os.Mkdir(alt, 0o755))
			s33rBindRO(t, ws, alt)
			sb := engine(t, eng, WithWorkspace(ws))
			o := s33Run(t, sb, Spec{
				Argv: []string{"sh", "-c", `cat "$1/secret.env" "$1/conf/secrets/key" "$1/README"; echo end`, "sh", alt},
				Mask: []string{"secret.env", "conf/secrets"},
			})
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the run failed: %s", o.Stderr)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files through a mount with escaped characters", strings.Count(out, "MASKSECRET"))
			assert.Equal(t, 1, strings.Count(out, "ORDINARY"))
		})
	}
}

// The workspace in the program's $TMPDIR (outside /tmp), which both
// engines empty but for the workspace (hostDirsAbove), and bound again at
// another place in that $TMPDIR: the other place's masks land in the
// emptied directory, where bwrap makes their mount points; the run starts
// and reads nothing masked there or at the workspace.
func TestAttackS33ReviewOtherMountInsideTheTmpdirThatHoldsTheWorkspace(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			tmp := hostDir(t)
			t.Setenv("TMPDIR", tmp)
			ws := workspaceDir(t)
			require.True(t, strings.HasPrefix(ws, tmp+"/"))
			require.NoError(t, os.MkdirAll(filepath.Join(ws, "conf", "secrets"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "secret.env"), []byte("MASKSECRET env\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "conf", "secrets", "key"), []byte("MASKSECRET key\n"), 0o644))
			alt := filepath.Join(tmp, "alt")
			require.NoError(t, os.Mkdir(alt, 0o755))
			s33rBindRO(t, ws, alt)
			sb := engine(t, eng, WithWorkspace(ws))
			o := s33Run(t, sb, Spec{
				Argv: []string{"sh", "-c", `cat secret.env conf/secrets/key "$1/secret.env" "$1/conf/secrets/key"; echo end`, "sh", alt},
				Mask: []string{"secret.env", "conf/secrets"},
			})
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the run failed: %s", o.Stderr)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files", strings.Count(out, "MASKSECRET"))
		})
	}
}
