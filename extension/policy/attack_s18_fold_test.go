package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// foldGovernance forbids what a host's file system opens under many
// spellings. The café pattern is NFC; the menu one is NFD.
const foldGovernance = `
global:
  forbidden_paths: ["**/.ssh/**", "/etc/**", "**/.env", "/srv/café/**", "/srv/me` + "nu\u0301" + `/**"]
tools:
  read_any: {forbidden_paths: ["/srv/vault/**"]}
`

// A file system that compares names loosely (APFS and NTFS by default,
// ext4 casefold directories, ZFS with normalization, vfat's trailing
// dots) opens ~/.SSH/id_rsa as ~/.ssh/id_rsa and /ETC/passwd as
// /etc/passwd, and a Go tool's os.ReadFile reaches the forbidden file;
// forbidden_paths matched the spelling as written, so "**/.ssh/**" and
// "/etc/**" let these through. The sandbox's rules judge a name folded
// since b9b94bc; the policy's forbidden_paths now do too. Only the
// decision is judged here (this machine's ext4 is case-sensitive): the
// files need not exist.
func TestAttackS18ForbiddenPathSpeltAsAFoldingFileSystemOpensIt(t *testing.T) {
	p, err := policy.Parse([]byte(foldGovernance))
	require.NoError(t, err)
	spec := readAnySpec(t)
	judge := func(path string) (string, error) {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		return p.Evaluate(tool.ModeNormal, &spec, args)
	}
	for _, path := range []string{
		// case
		"/home/u/.SSH/id_rsa",
		"/home/u/.Ssh/id_rsa",
		"/ETC/passwd",
		"/Etc/shadow",
		"/app/.ENV",
		"/home/u/.ſsh/id_rsa", // long s folds to s
		"/SRV/CAFÉ/menu",
		// fullwidth and other compatibility forms
		"/ｅｔｃ/passwd",
		"/home/u/．ssh/id_rsa",
		"/app/．ｅｎｖ",
		// default-ignorable code points
		"/home/u/.ss\u200bh/id_rsa",
		"/e\u200dtc/passwd",
		"/app/.e\ufeffnv",
		"/home/u/.s\u00adsh/id_rsa",
		// trailing dots and spaces of a component
		"/etc./passwd",
		"/home/u/.ssh./id_rsa",
		"/home/u/.ssh /id_rsa",
		"/app/.env.",
		"/app/.env ",
		// normalisation: NFD against an NFC pattern, NFC against an NFD one
		"/srv/cafe\u0301/menu",
		"/srv/menú/today",
		// a tool's own forbidden_paths
		"/srv/VAULT/key",
		"/srv/vault./key",
	} {
		rule, err := judge(path)
		if assert.Error(t, err, "%q was let through", path) {
			var te *tool.Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tool.CodePolicyDenied, te.Code, "%q: %v", path, err)
			assert.Contains(t, rule, "forbidden_paths", "%q", path)
		}
	}
	// Twins: names the patterns do not name, folded or not, still run.
	for _, path := range []string{"/home/u/ssh/id_rsa", "/home/u/.sshx/id", "/etc2/passwd", "/srv/cafe/menu", "/srv/menu/today", "/app/.envrc", "/srv/vaults/key"} {
		_, err := judge(path)
		assert.NoError(t, err, "%q", path)
	}
}

// Policy.Hide, which a workspace asks about every path it serves, lists
// or searches, judges a name as folded too: a workspace on a folding file
// system serves .SSH/id as .ssh/id.
func TestAttackS18HideJudgesANameAsAFoldingFileSystemOpensIt(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**", "secrets/**", "/w/keys/**"]}`))
	require.NoError(t, err)
	for _, c := range []struct{ rel, abs string }{
		{".SSH/id", "/w/.SSH/id"},
		{".ss\u200bh/id", "/w/.ss\u200bh/id"},
		{"Secrets/token", "/w/Secrets/token"},
		{"ｓｅｃｒｅｔｓ/token", "/w/ｓｅｃｒｅｔｓ/token"},
		{"secrets./token", "/w/secrets./token"},
		{"KEYS/a", "/w/KEYS/a"},
	} {
		assert.NotEmpty(t, p.Hide(c.rel, c.abs), "%q", c.rel)
	}
	assert.Empty(t, p.Hide("public/readme.md", "/w/public/readme.md"))
	assert.Empty(t, p.Hide("secretsx/a", "/w/secretsx/a"))
}

// The built-in read_file, in a workspace, with the variant names made as
// spelt (on this case-sensitive ext4 they are other files; on a folding
// file system they are the forbidden ones): the policy refuses each.
func TestAttackS18BuiltinReadOfAForbiddenNameSpeltAnotherWay(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**", "secrets/**", "**/.env"]}`))
	require.NoError(t, err)
	dir := t.TempDir()
	names := []string{".SSH/id", ".ss\u200bh/id", "Secrets/token", "secrets./token", ".ENV", ".env.", ".e\u200cnv", "ｓｅｃｒｅｔｓ/token"}
	for _, n := range names {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(n)), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(sshSecret+"\n"), 0o600))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "public.txt"), []byte("public\n"), 0o644))
	// Only the policy is judged: the workspace's own secrets are off.
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets(), sandbox.WithHide(p.Hide))
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, n := range names {
		b, err := json.Marshal(map[string]string{"path": n})
		require.NoError(t, err)
		res := callRaw(t, ex, "read_file", string(b))
		assert.NotContains(t, resultText(res), sshSecret, "%q", n)
		assert.NotNil(t, res.Error, "%q was read", n)
	}
	res := callRaw(t, ex, "read_file", `{"path": "public.txt"}`)
	require.Nil(t, res.Error, "%v", res.Error)
	assert.Contains(t, resultText(res), "public")
}

// A tool's own forbidden_paths refuse it a directory that holds what they
// name, since listing or searching it reaches that: on a folding file
// system, listing DOCS lists docs, and searching it reads docs/secrets.
func TestAttackS18DirectoryHoldingAForbiddenNameSpeltAnotherWay(t *testing.T) {
	p, err := policy.Parse([]byte(`
tools:
  list_directory: {forbidden_paths: ["docs/secrets/**"]}
  search_files: {forbidden_paths: ["docs/secrets/**"]}
`))
	require.NoError(t, err)
	dir := t.TempDir()
	for _, d := range []string{"DOCS/secrets", "do\u200bcs/secrets", "docs./secrets", "docs/public"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, d, "token"), []byte(sshSecret+"\n"), 0o600))
	}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets(), sandbox.WithHide(p.Hide))
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, d := range []string{"DOCS", "do\u200bcs", "docs."} {
		for _, c := range []struct{ name, args string }{
			{"list_directory", `{"path": %q, "depth": 3}`},
			{"search_files", `{"path": %q, "pattern": "SSH"}`},
		} {
			b, err := json.Marshal(d)
			require.NoError(t, err)
			args := strings.Replace(c.args, "%q", string(b), 1)
			res := callRaw(t, ex, c.name, args)
			assert.NotContains(t, resultText(res), "token", "%s %s", c.name, args)
			if assert.NotNil(t, res.Error, "%s %s ran", c.name, args) {
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s %s: %v", c.name, args, res.Error)
			}
		}
	}
	res := callRaw(t, ex, "list_directory", `{"path": "docs/public"}`)
	require.Nil(t, res.Error, "%v", res.Error)
}

// allowed_paths keep their spelling: folding them would widen what they
// let through (a rule naming /srv/public would let /srv/PUBLIC, another
// directory on a case-sensitive file system, through). A name spelt
// another way is outside them, and refused.
func TestS18AllowedPathsKeepTheirSpelling(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {allowed_paths: ["/srv/public/**"]}`))
	require.NoError(t, err)
	spec := readAnySpec(t)
	judge := func(path string) error {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		_, err = p.Evaluate(tool.ModeNormal, &spec, args)
		return err
	}
	assert.NoError(t, judge("/srv/public/a"))
	for _, path := range []string{"/srv/PUBLIC/a", "/srv/public./a", "/srv/pub\u200blic/a"} {
		assert.Error(t, judge(path), "%q", path)
	}
}

func readAnySpec(t *testing.T) tool.Spec {
	t.Helper()
	type in struct {
		Path string `json:"path" toolbelt:"path"`
	}
	return tool.Func("read_any", "Read a file", func(context.Context, in) (string, error) { return "", nil }).Spec()
}
