package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// A model's pattern decides how much work search_files does per byte: RE2
// is linear in the text, but times the number of threads the program keeps
// alive, and `\w{1000}` keeps a thousand. Twenty of them in a row ran for
// tens of seconds on one 256 KiB line, and the walk checked its context
// only between files, so the call ran on long after its deadline (the
// executor abandons it, still burning a core). Many lines of a moderate
// pattern did the same across a few files. The tool must refuse a pattern
// whose program is that large, and stop at the deadline between lines.
func TestAttackS13bSearchPatternOutlivesItsDeadline(t *testing.T) {
	cases := []struct {
		name    string
		pattern string
		content string
		maxSize int64
	}{
		{"one long line, huge program", strings.Repeat(`\w{1000}`, 20) + "x", strings.Repeat("a", 256<<10), 0},
		// A deployment that searches larger files (8 MiB here): a program
		// under the bound, over many lines of one file.
		{"many lines, bounded program", `\w{900}x`, strings.Repeat(strings.Repeat("a", 2047)+"\n", 4096), 16 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.write(t, "f.txt", c.content)
			search := builtin.SearchFiles(e.ws, builtin.WithMaxSearchFileSize(c.maxSize))
			args, err := json.Marshal(map[string]any{"pattern": c.pattern})
			require.NoError(t, err)
			// The deadline passes at the 16th look at the context, a few
			// lines into the file, not at a time (a shared machine's clock
			// is noise). The old code looked only between files, and ran
			// the whole file (30 s and more on an idle machine) to an answer.
			ctx := &deadlineAfter{Context: context.Background(), asks: 16}
			res, err := search.Run(ctx, tool.Call{Name: "search_files", Args: args})
			require.Error(t, err, "the search cannot have finished: %v", res)
			assert.LessOrEqual(t, ctx.asked.Load(), int64(17), "search_files went on after its deadline had passed")
			code := tool.AsError(err).Code
			assert.Contains(t, []tool.Code{tool.CodeInvalidArguments, tool.CodeTimeout, tool.CodeCancelled}, code, "%v", err)
		})
	}
}

// git_diff leaves the paths the workspace hides (the policy's forbidden
// paths) out of its answer and names them nowhere; list_directory and
// search_files count them without naming them. git_status printed them:
// an untracked secret file, a modified one, and one staged under a new
// name, each by its path.
func TestAttackS13bGitStatusNamesHiddenPaths(t *testing.T) {
	dir := t.TempDir()
	hide := func(rel, _ string) string {
		if rel == "private" || strings.HasPrefix(rel, "private/") {
			return "test rule private/**"
		}
		return ""
	}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(hide))
	require.NoError(t, err)
	defer ws.Close()
	root := ws.Dir()
	git(t, root, "init", "-q", "-b", "main")
	put := func(name, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	put("private/tracked-secret-name.txt", "one\n")
	put("private/moved-secret-name.txt", "moved\n")
	put("a.txt", "a1\n")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "first")
	put("private/tracked-secret-name.txt", "two\n")
	put("private/untracked-secret-name.txt", "new\n")
	put("a.txt", "a2\n")
	put("b.txt", "b\n")
	git(t, root, "mv", "private/moved-secret-name.txt", "private/renamed-secret-name.txt")
	// An untracked directory holding a secret (sandbox.DefaultSecrets)
	// beside an ordinary file.
	put("pub/.env", "TOKEN=1\n")
	put("pub/x.txt", "x\n")
	// An untracked hidden directory, which git shows as one entry.
	put("private/newdir-secret-name/n.txt", "n\n")

	st, err := builtin.GitStatus(ws, processSandbox(t, root))
	require.NoError(t, err)
	res, err := st.Run(context.Background(), tool.Call{Name: "git_status"})
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "secret-name", "a hidden path is named nowhere in the result")
	assert.NotContains(t, res.Text(), "private")
	assert.Contains(t, res.Text(), "## main")
	assert.Contains(t, res.Text(), " M a.txt")
	assert.Contains(t, res.Text(), "?? b.txt")
	assert.Contains(t, res.Text(), "changed paths hidden by policy")
	assert.NotContains(t, res.Text(), ".env")
	assert.Contains(t, res.Text(), "?? pub/")
	assert.Equal(t, 5, res.Metadata[builtin.MetaHidden])
}

// read_file reads through a file up to the line asked for, and the file
// is not held to the workspace's maximum size: a large (here sparse) file
// and an offset past its end made it read hundreds of GiB, with no look at
// its context, long past its deadline.
func TestAttackS13bReadFileOutlivesItsDeadline(t *testing.T) {
	e := newEnv(t)
	// Text for the first 8000 bytes (not binary), then a hole.
	e.write(t, "big.log", "first line, then a very long one\n"+strings.Repeat("x", 9000))
	require.NoError(t, os.Truncate(filepath.Join(e.dir, "big.log"), 256<<30))
	read := builtin.ReadFile(e.ws)
	// The deadline passes at the 64th look at the context, a few buffers
	// into the hole, not at a time (a shared machine's clock is noise).
	ctx := &deadlineAfter{Context: context.Background(), asks: 64}
	res, err := read.Run(ctx, tool.Call{Name: "read_file", Args: json.RawMessage(`{"path":"big.log","offset":3}`)})
	require.Error(t, err, "the read cannot have finished: %v", res)
	assert.Equal(t, tool.CodeTimeout, tool.AsError(err).Code, "%v", err)
	assert.LessOrEqual(t, ctx.asked.Load(), int64(65), "read_file went on after its deadline had passed")
}

// deadlineAfter is a context whose deadline passes at a step rather than
// a time: its Err says nil to the first asks looks, and
// context.DeadlineExceeded from then on. asked counts the looks.
type deadlineAfter struct {
	context.Context
	asks  int64
	asked atomic.Int64
}

func (c *deadlineAfter) Err() error {
	if c.asked.Add(1) > c.asks {
		return context.DeadlineExceeded
	}
	return nil
}

// git_log's path is judged by the policy as the workspace path it names,
// but git read it as a pathspec: ":(glob)priv*" (a name that does not
// exist, so nothing refuses it) showed the commits that touch a hidden
// directory, which naming it ("private") is refused for.
func TestAttackS13bGitLogPathIsAPathspec(t *testing.T) {
	e := newGitEnv(t)
	e.write(t, "private/key.txt", "k\n")
	git(t, e.dir, "add", "private/key.txt")
	git(t, e.dir, "commit", "-q", "-m", "rotate the production key")
	for _, p := range []string{":(glob)priv*", "priv*", ":/private", "*/key.txt"} {
		res := e.call(t, "git_log", map[string]any{"path": p})
		assert.NotContains(t, res.Text(), "production key", "path %q", p)
	}
	res := e.call(t, "git_log", map[string]any{"path": "a.txt"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "second commit")
	assert.NotContains(t, res.Text(), "production key")
}

// edit_file with replace_all built the whole new content before the
// workspace judged its size: a one-letter old_string occurring a million
// times and a 512-byte new_string made it allocate 512 MiB (here) before
// the write was refused; a 64 KiB new_string over a few MiB of source asks
// for hundreds of GiB, and the runtime's out-of-memory is fatal to the
// whole process. The tool must refuse from the counts alone.
func TestAttackS13bEditFileReplaceAllBlowsUp(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", strings.Repeat("a", 1<<20))
	res := e.call(t, "edit_file", map[string]any{"path": "a.txt", "old_string": "a", "new_string": strings.Repeat("b", 512), "replace_all": true})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code, "%v", res.Error)
	assert.Contains(t, res.Error.Message, "would grow")
	// An edit that grows the file within the bound still runs.
	e.write(t, "b.txt", "x y x\n")
	res = e.call(t, "edit_file", map[string]any{"path": "b.txt", "old_string": "x", "new_string": "xxx", "replace_all": true})
	require.True(t, res.OK(), "%v", res.Error)
	b, err := os.ReadFile(filepath.Join(e.dir, "b.txt"))
	require.NoError(t, err)
	assert.Equal(t, "xxx y xxx\n", string(b))
}

// A repository's configuration can make "git log" verify each signed
// commit (log.showSignature) with a program it names (gpg.program), as it
// can name a core.fsmonitor program for "git status", which the git tools
// turn off. git_log ran that program.
func TestAttackS13bGitLogRunsTheRepositorysGPGProgram(t *testing.T) {
	e := newGitEnv(t)
	out, err := exec.Command("git", "-C", e.dir, "cat-file", "commit", "HEAD").Output()
	require.NoError(t, err)
	head, body, ok := strings.Cut(string(out), "\n\n")
	require.True(t, ok)
	signed := head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + body
	cmd := exec.Command("git", "-C", e.dir, "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Stdin = strings.NewReader(signed)
	id, err := cmd.Output()
	require.NoError(t, err)
	git(t, e.dir, "update-ref", "HEAD", strings.TrimSpace(string(id)))

	bin := t.TempDir()
	marker := filepath.Join(bin, "ran")
	prog := filepath.Join(bin, "fake-gpg")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\ntouch '"+marker+"'\nexit 1\n"), 0o755))
	git(t, e.dir, "config", "gpg.program", prog)
	git(t, e.dir, "config", "log.showSignature", "true")

	res := e.call(t, "git_log", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "second commit")
	assert.NoFileExists(t, marker, "git_log ran the repository's gpg.program")
}

// A repository's configuration can name a clean filter (filter.<name>.clean)
// that its .gitattributes applies to a path; "git status" runs it on a file
// whose stat no longer matches the index, to compare the content. git_diff
// leaves such paths out (":(attr:!filter)"); git_status ran the program.
func TestAttackS13bGitStatusRunsACleanFilter(t *testing.T) {
	e := newGitEnv(t)
	bin := t.TempDir()
	marker := filepath.Join(bin, "ran")
	prog := filepath.Join(bin, "clean")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\ntouch '"+marker+"'\ncat\n"), 0o755))
	e.write(t, ".gitattributes", "a.txt filter=x\n")
	git(t, e.dir, "add", ".gitattributes")
	git(t, e.dir, "commit", "-q", "-m", "attributes")
	git(t, e.dir, "config", "filter.x.clean", prog)
	// Same content, new mtime: git must look at the content.
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(e.dir, "a.txt"), future, future))

	res := e.call(t, "git_status", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "## main")
	assert.NoFileExists(t, marker, "git_status ran the repository's clean filter")
}

// The same clean filter, configured in a submodule: git status asks the
// submodule whether it is dirty with a "git status" of its own, which
// carries none of the outer pathspecs. git diff asks the same way, for its
// "-dirty" mark (git_diff ran the filter until the fourteenth session).
func TestAttackS13bGitToolsRunASubmodulesCleanFilter(t *testing.T) {
	e := newGitEnv(t)
	sub := t.TempDir()
	git(t, sub, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "f"), []byte("a\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sub, ".gitattributes"), []byte("f filter=x\n"), 0o644))
	git(t, sub, "add", "f", ".gitattributes")
	git(t, sub, "commit", "-q", "-m", "f")
	git(t, e.dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/sub")
	git(t, e.dir, "commit", "-q", "-m", "submodule")
	bin := t.TempDir()
	marker := filepath.Join(bin, "ran")
	prog := filepath.Join(bin, "clean")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\ntouch '"+marker+"'\ncat\n"), 0o755))
	git(t, filepath.Join(e.dir, "vendor/sub"), "config", "filter.x.clean", prog)
	// The repository asks for dirty submodules to be checked.
	git(t, e.dir, "config", "diff.ignoreSubmodules", "none")
	git(t, e.dir, "config", "submodule.vendor/sub.ignore", "none")
	for _, c := range []struct {
		name string
		args map[string]any
	}{{"git_status", map[string]any{}}, {"git_diff", map[string]any{}}, {"git_diff", map[string]any{"path": "vendor/sub"}}} {
		future := time.Now().Add(time.Hour)
		require.NoError(t, os.Chtimes(filepath.Join(e.dir, "vendor/sub/f"), future, future))
		res := e.call(t, c.name, c.args)
		require.True(t, res.OK(), "%s: %v", c.name, res.Error)
		assert.NoFileExists(t, marker, "%s ran the submodule's clean filter", c.name)
		os.Remove(marker)
	}
}

// The refusal of a too-large program names the rule and what to do, and an
// ordinary pattern still runs.
func TestSearchPatternSizeIsBounded(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", "hello world\n")
	res := e.call(t, "search_files", map[string]any{"pattern": strings.Repeat(`\w{1000}`, 3)})
	require.Equal(t, tool.CodeInvalidArguments, code(res))
	assert.Contains(t, res.Error.Message, "too large")
	res = e.call(t, "search_files", map[string]any{"pattern": `h\w+ w[a-z]{2,10}`})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "a.txt:1: hello world")
}
