package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantGitHooks changes what a repository's owner runs at their next git
// command in the workspace, outside the sandbox (published against Claude
// Code's and Codex's sandboxes; sandbox-runtime and Codex keep .git/hooks
// and .git/config read-only for this): a pre-commit hook, a core.fsmonitor
// command (run by git status), a core.hooksPath, a commondir naming a git
// directory of the command's (git reads its config there), Mercurial's
// [hooks], and, with .git moved aside or removed, a new .git whose config
// names a monitor. It prints one line per try, then the lines of .git/HEAD
// and .hg/requires it reads, and "end".
const plantGitHooks = `
try() { if sh -c "$2" 2>/dev/null; then echo "$1: OK"; else echo "$1: refused"; fi; }
try hook 'printf "#!/bin/sh\nexit 0\n" > .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit'
try fsmonitor 'printf "[core]\n\tfsmonitor = true\n" >> .git/config'
try hooksPath 'mkdir -p h && printf "[core]\n\thooksPath = h\n" >> .git/config'
try commondir 'mkdir -p c && printf "[core]\n\tfsmonitor = true\n" > c/config && echo ../c > .git/commondir'
try hgrc 'printf "[hooks]\nupdate = true\n" >> .hg/hgrc'
try "move .git aside" 'mv .git .git.old && mkdir .git && printf "[core]\n\tfsmonitor = true\n" > .git/config'
try "remove .git" 'rm -rf .git; mkdir -p .git && printf "[core]\n\tfsmonitor = true\n" > .git/config'
cat .git/HEAD .hg/requires
echo end
`

// repoConfig is the .git/config of plantGitHooksIn's repository.
const repoConfig = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"

// plantGitHooksIn runs plantGitHooks through engine name in a workspace
// holding a .git and a .hg, the developer's own: root's (0700) for bwrap and
// gvisor, which bind it to the command as its own, the command's user's for
// the others (landlock's 65534 must own what it works on).
func plantGitHooksIn(t *testing.T, name string) (ws string, out *Outcome) {
	t.Helper()
	ws = workspaceDir(t)
	git, hg := filepath.Join(ws, ".git"), filepath.Join(ws, ".hg")
	require.NoError(t, os.MkdirAll(filepath.Join(git, "hooks"), 0o755))
	require.NoError(t, os.MkdirAll(hg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(git, "config"), []byte(repoConfig), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(hg, "requires"), []byte("store\n"), 0o644))
	if ownMounts(name) {
		require.NoError(t, os.Chmod(ws, 0o700))
	} else {
		require.NoError(t, filepath.Walk(ws, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, runUID(), runUID())
		}))
	}
	out = sh(t, engine(t, name, WithWorkspace(ws)), plantGitHooks)
	require.Contains(t, string(out.Stdout), "end", "the attack did not run")
	return ws, out
}

// Attack: a command of the agent's (a test it wrote and ran, which the
// classifier rates as the go test it is) plants a hook or a config in the
// repository the workspace holds; the developer's next git status or git
// commit, on the host, runs it without any sandbox. bwrap and gvisor bind
// the workspace's .git and .hg read-only (repoDirs); before, every try got
// through on both. Landlock cannot: its rules only add access beneath a
// directory, and one that lets the command make files in the workspace lets
// it make them in .git (the engine table's row, TestEngineTable, states it
// for every engine).
func TestAttackS21CommandPlantsGitHooks(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws, out := plantGitHooksIn(t, name)
			git, hg := filepath.Join(ws, ".git"), filepath.Join(ws, ".hg")
			b, err := os.ReadFile(filepath.Join(git, "config"))
			assert.NotContains(t, string(out.Stdout), "OK")
			// The repositories stay readable.
			assert.Contains(t, string(out.Stdout), "ref: refs/heads/main\nstore\n")
			require.NoError(t, err)
			assert.Equal(t, repoConfig, string(b), ".git/config was changed")
			for _, p := range []string{"hooks/pre-commit", "commondir"} {
				assert.NoFileExists(t, filepath.Join(git, p))
			}
			assert.NoFileExists(t, filepath.Join(hg, "hgrc"))
			assert.NoDirExists(t, filepath.Join(ws, ".git.old"))
		})
	}
}

// A read-only repository is still read in the sandbox: git status, git diff
// and git log work, git commit does not (docs/sandbox.md says so).
func TestS21ReadOnlyRepositoryIsRead(t *testing.T) {
	requireRoot(t)
	if !haveBinary("git") {
		if os.Getenv("CI") != "" {
			t.Fatal("git must be installed in CI")
		}
		t.Skip("git is not installed")
	}
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.Chmod(ws, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644))
			home := t.TempDir()
			for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "a.txt"}, {"commit", "-q", "-m", "first"}} {
				cmd := exec.Command("git", append([]string{"-C", ws}, args...)...)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
					"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com"}
				b, err := cmd.CombinedOutput()
				require.NoError(t, err, "git %v: %s", args, b)
			}
			require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("two\n"), 0o644))
			sb := engine(t, name, WithWorkspace(ws))
			o := sh(t, sb, `export HOME=/tmp; git status --short && git diff --stat && git log --format=%s`)
			assert.Equal(t, 0, o.ExitCode)
			assert.Equal(t, " M a.txt\n a.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\nfirst\n", string(o.Stdout))
			commit := `export HOME=/tmp; git -c user.name=m -c user.email=m@example.com commit -qam second`
			o = sh(t, sb, commit)
			assert.NotEqual(t, 0, o.ExitCode, "git commit wrote the read-only .git")
			// WithWritableRepository gives an agent that must commit its .git.
			o = sh(t, engine(t, name, WithWorkspace(ws), WithWritableRepository()), commit+` && git log --format=%s`)
			assert.Equal(t, 0, o.ExitCode, "%s", o.Stderr)
			assert.Equal(t, "second\nfirst\n", string(o.Stdout))
		})
	}
}

// A worktree's or submodule's .git is a file naming its git directory: a
// command that rewrote it to name a directory of its own had git read that
// directory's config. It is bound read-only too.
func TestAttackS21CommandRewritesGitFile(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.Chmod(ws, 0o700))
			gitFile := filepath.Join(ws, ".git")
			const pointer = "gitdir: /srv/repo/.git/worktrees/w\n"
			require.NoError(t, os.WriteFile(gitFile, []byte(pointer), 0o644))
			out := sh(t, engine(t, name, WithWorkspace(ws)),
				`mkdir -p g && printf "[core]\n\tfsmonitor = true\n" > g/config; echo "gitdir: g" > .git || rm -f .git || mv .git x; echo end`)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
			b, err := os.ReadFile(gitFile)
			require.NoError(t, err)
			assert.Equal(t, pointer, string(b), ".git was rewritten")
		})
	}
}
