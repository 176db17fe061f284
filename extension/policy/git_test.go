package policy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

const gone = "GONE-SECRET-0815"

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// gitFixture is a git repository whose working tree changes public.txt,
// secrets/key (to the secret) and deletes secrets/old (whose committed
// content is gone), with git_diff on it behind the policy, the workspace
// hiding what the policy forbids (as docs/sandbox.md wires it).
func gitFixture(t *testing.T, governance string) (*executor.Executor, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for this test: %v", err)
	}
	p, err := policy.Parse([]byte(governance))
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	runGit(t, dir, "init", "-q", "-b", "main")
	write("public.txt", "public v1\n")
	write("secrets/key", "placeholder\n")
	write("secrets/old", gone+"\n")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "first")
	write("public.txt", "public v2\n")
	write("secrets/key", secret+"\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "secrets", "old")))
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(p.Hide))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	sb, err := sandbox.New("process", sandbox.WithWorkspace(ws.Dir()),
		sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	require.NoError(t, err)
	diff, err := builtin.GitDiff(ws, sb)
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(diff))
	return executor.MustNew(reg, executor.WithExtensions(p)), dir
}

// git_diff is bound by the policy like list_directory and search_files:
// its path argument is declared and resolved, a diff of the whole
// repository leaves out what global.forbidden_paths hides (and says so),
// and a tool's own forbidden_paths refuse a diff that would reach them.
// Seen failing before: git_diff without a path printed secrets/key's new
// content and secrets/old's deleted content.
func TestGitDiffCannotShowWhatThePolicyForbids(t *testing.T) {
	t.Run("global forbidden_paths, whole diff", func(t *testing.T) {
		ex, _ := gitFixture(t, `global: {forbidden_paths: ["secrets/**"]}`)
		res := call(t, ex, "git_diff", map[string]any{})
		require.True(t, res.OK(), "%v", res.Error)
		assert.NotContains(t, resultText(res), secret)
		assert.NotContains(t, resultText(res), gone)
		assert.NotContains(t, resultText(res), "secrets/")
		assert.Contains(t, res.Text(), "+public v2", "what is not forbidden is still shown")
		assert.Contains(t, res.Text(), "[2 changed paths hidden by policy]")
		assert.Equal(t, 2, res.Metadata[builtin.MetaHidden])
	})
	t.Run("global forbidden_paths, staged diff", func(t *testing.T) {
		ex, dir := gitFixture(t, `global: {forbidden_paths: ["secrets/**"]}`)
		runGit(t, dir, "add", "-A")
		res := call(t, ex, "git_diff", map[string]any{"staged": true})
		require.True(t, res.OK(), "%v", res.Error)
		assert.NotContains(t, resultText(res), secret)
		assert.NotContains(t, resultText(res), gone)
		assert.Contains(t, res.Text(), "+public v2")
		assert.Contains(t, res.Text(), "[2 changed paths hidden by policy]")
	})
	t.Run("global forbidden_paths, the forbidden directory by name and alias", func(t *testing.T) {
		ex, _ := gitFixture(t, `global: {forbidden_paths: ["secrets/**"]}`)
		for _, p := range []string{"secrets", "./secrets/key", "public.txt/../secrets"} {
			res := call(t, ex, "git_diff", map[string]any{"path": p})
			require.NotNil(t, res.Error, "%s allowed: %s", p, resultText(res))
			assert.NotContains(t, resultText(res), secret)
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			assert.Equal(t, "global.forbidden_paths", res.Metadata[policy.MetaRule])
		}
	})
	t.Run("tool forbidden_paths, whole diff refused", func(t *testing.T) {
		ex, _ := gitFixture(t, `tools: {git_diff: {forbidden_paths: ["secrets/**"]}}`)
		res := call(t, ex, "git_diff", map[string]any{})
		require.NotNil(t, res.Error, "allowed: %s", resultText(res))
		assert.NotContains(t, resultText(res), secret)
		assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
		assert.Equal(t, "tools.git_diff.forbidden_paths", res.Metadata[policy.MetaRule])
		res = call(t, ex, "git_diff", map[string]any{"path": "public.txt"})
		require.True(t, res.OK(), "%v", res.Error)
		assert.Contains(t, res.Text(), "+public v2")
	})
	t.Run("tool forbidden_paths, a git wildcard is a literal path", func(t *testing.T) {
		ex, _ := gitFixture(t, `tools: {git_diff: {forbidden_paths: ["secrets/**"]}}`)
		for _, p := range []string{"secre*", "*/key", ":(glob)secrets/*", ":/secrets"} {
			res := call(t, ex, "git_diff", map[string]any{"path": p})
			assert.NotContains(t, resultText(res), secret, p)
			assert.NotContains(t, resultText(res), gone, p)
		}
	})
	t.Run("allowed_paths", func(t *testing.T) {
		ex, _ := gitFixture(t, `global: {allowed_paths: ["public.txt"]}`)
		res := call(t, ex, "git_diff", map[string]any{})
		require.NotNil(t, res.Error, "allowed: %s", resultText(res))
		assert.NotContains(t, resultText(res), secret)
		assert.Equal(t, "global.allowed_paths", res.Metadata[policy.MetaRule])
		res = call(t, ex, "git_diff", map[string]any{"path": "public.txt"})
		require.True(t, res.OK(), "%v", res.Error)
		assert.Contains(t, res.Text(), "+public v2")
	})
}

// A hidden path whose name is not UTF-8 cannot be passed to git as an
// exclusion (the arguments travel as JSON, which would replace its bytes),
// so the diff is refused rather than shown with it. Seen failing before:
// the exclusion named U+FFFD and git printed the file's content.
func TestGitDiffRefusesWhatItCannotExclude(t *testing.T) {
	ex, dir := gitFixture(t, `global: {forbidden_paths: ["secrets/**"]}`)
	odd := filepath.Join(dir, "secrets", "k\xff")
	require.NoError(t, os.WriteFile(odd, []byte("placeholder\n"), 0o644))
	runGit(t, dir, "add", "secrets")
	runGit(t, dir, "commit", "-q", "-m", "odd")
	require.NoError(t, os.WriteFile(odd, []byte("ODD-"+secret+"\n"), 0o644))
	res := call(t, ex, "git_diff", map[string]any{})
	assert.NotContains(t, resultText(res), secret)
	require.NotNil(t, res.Error, "shown: %s", resultText(res))
	assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
	assert.Contains(t, res.Error.Message, "not valid UTF-8")
	res = call(t, ex, "git_diff", map[string]any{"path": "public.txt"})
	require.True(t, res.OK(), "a path outside it: %v", res.Error)
	assert.Contains(t, res.Text(), "+public v2")
}

// A repository's configuration can name a clean filter (filter.<driver>.clean)
// that its .gitattributes applies to a path; git diff runs it on the
// working-tree file and shows its output as that file's content, so a filter
// that prints a hidden file leaked it under a shown name. git_diff leaves
// out every path with a filter attribute, and the filter never runs. Seen
// failing before: the diff of public.txt printed secrets/key.
func TestGitDiffRunsNoFilterTheRepositoryNames(t *testing.T) {
	ex, dir := gitFixture(t, `global: {forbidden_paths: ["secrets/**"]}`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("public.txt filter=leak\n"), 0o644))
	runGit(t, dir, "config", "filter.leak.clean", "touch filter-ran; cat secrets/key secrets/old; cat")
	for _, args := range []map[string]any{{}, {"path": "public.txt"}, {"path": "."}} {
		res := call(t, ex, "git_diff", args)
		assert.NotContains(t, resultText(res), secret, "%v", args)
		assert.NotContains(t, resultText(res), "+public v2", "%v: a filtered path is left out", args)
		assert.NoFileExists(t, filepath.Join(dir, "filter-ran"), "%v", args)
	}
	require.NoError(t, os.Remove(filepath.Join(dir, ".gitattributes")))
	res := call(t, ex, "git_diff", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "+public v2", "without the attribute the path is shown")
}

// A repository's configuration can set diff.submodule=diff, which makes
// git diff show the changes inside a submodule file by file; the listing
// names only the submodule, so a forbidden file inside it was shown.
// git_diff asks for the short form (the submodule's commit) whatever the
// configuration says. Seen failing before: vendor/sub/key.pem's new
// content was printed.
func TestGitDiffShowsNoFileInsideASubmodule(t *testing.T) {
	ex, dir := gitFixture(t, `global: {forbidden_paths: ["secrets/**", "**/*.pem"]}`)
	sub := t.TempDir()
	runGit(t, sub, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "key.pem"), []byte("placeholder\n"), 0o644))
	runGit(t, sub, "add", ".")
	runGit(t, sub, "commit", "-q", "-m", "sub")
	runGit(t, dir, "-c", "protocol.file.allow=always", "submodule", "-q", "add", sub, "vendor/sub")
	runGit(t, dir, "commit", "-q", "-m", "submodule")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vendor", "sub", "key.pem"), []byte(secret+"\n"), 0o644))
	runGit(t, dir, "config", "diff.submodule", "diff")
	for _, args := range []map[string]any{{}, {"path": "vendor"}, {"path": "vendor/sub"}} {
		res := call(t, ex, "git_diff", args)
		assert.NotContains(t, resultText(res), secret, "%v", args)
		assert.NotContains(t, resultText(res), "key.pem", "%v", args)
	}
	// A submodule whose work tree alone differs is not shown (git would
	// run its clean filters to tell); one whose commit differs is, as
	// that commit, and its files still are not.
	res := call(t, ex, "git_diff", map[string]any{"path": "vendor/sub"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.NotContains(t, res.Text(), "Subproject commit")
	runGit(t, filepath.Join(dir, "vendor", "sub"), "commit", "-q", "-am", "rotate")
	for _, args := range []map[string]any{{}, {"path": "vendor/sub"}} {
		res = call(t, ex, "git_diff", args)
		require.True(t, res.OK(), "%v", res.Error)
		assert.Contains(t, res.Text(), "Subproject commit", "the submodule's commit is still shown")
		assert.NotContains(t, resultText(res), secret, "%v", args)
		assert.NotContains(t, resultText(res), "key.pem", "%v", args)
	}
}

// A repository's configuration can name any file as its attributes file
// (core.attributesFile); git reads it for every diff and quotes each
// invalid attribute name in a warning, so a hidden file's words reached
// the result's stderr. git_diff reads no attributes file but the
// repository's own .gitattributes. Seen failing before: "$TOPSECRET-4711
// is not a valid attribute name: secrets/attrs:1".
func TestGitDiffReadsNoAttributesFileTheConfigNames(t *testing.T) {
	ex, dir := gitFixture(t, `global: {forbidden_paths: ["secrets/**"]}`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "attrs"), []byte("x $"+secret+"\n"), 0o644))
	runGit(t, dir, "config", "core.attributesFile", "secrets/attrs")
	res := call(t, ex, "git_diff", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.NotContains(t, resultText(res), secret)
	assert.Contains(t, res.Text(), "+public v2")
}
