package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// WithBaseDir resolves a relative path argument against the directory
// before the globs match it: the absolute allowed and forbidden patterns
// of testdata/governance.yaml ($WORK is /w) then judge "notes.md" as
// /w/agent/notes.md. Absolute arguments are judged as written.
func TestWithBaseDirResolvesRelativePaths(t *testing.T) {
	cases := []struct {
		path     string
		wantRule string // empty: allowed
		wantMsg  string
	}{
		{"notes.md", "", ""},
		{"./a/b/c.txt", "", ""},
		{"../docs/readme.md", "", ""},
		{"secrets/key", "tools.write_file.forbidden_paths", `matches forbidden pattern "$WORK/agent/secrets/**"`},
		{"a/../secrets/key", "tools.write_file.forbidden_paths", `"$WORK/agent/secrets/**"`},
		{"../docs/sub/readme.md", "tools.write_file.allowed_paths", "not under an allowed path"},
		{"../../../etc/passwd", "global.forbidden_paths", `"/etc/**"`},
		{"/w/agent/x.txt", "", ""},
		{"/tmp/x.txt", "tools.write_file.allowed_paths", "not under an allowed path"},
	}
	p, err := policy.Load("testdata/governance.yaml", policy.WithEnv(env), policy.WithBaseDir("/w/agent"))
	require.NoError(t, err)
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			f := newFixture(t)
			res, err := run(t, f.executor(p), "write_file", fileArgs{Path: tc.path})
			if tc.wantRule == "" {
				require.NoError(t, err)
				assert.EqualValues(t, 1, f.runs.Load())
				return
			}
			require.Error(t, err)
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
			assert.Equal(t, tc.wantRule, res.Metadata[policy.MetaRule])
			assert.Contains(t, res.Error.Message, tc.wantMsg)
			assert.Zero(t, f.runs.Load())
		})
	}

	// Without it the same relative paths are matched as written: none is
	// under the absolute allowed paths, and ".." that climbs out is refused.
	f := newFixture(t)
	ex := f.executor(load(t))
	for path, rule := range map[string]string{"notes.md": "tools.write_file.allowed_paths", "secrets/key": "tools.write_file.allowed_paths", "../docs/readme.md": "paths.parent"} {
		res, err := run(t, ex, "write_file", fileArgs{Path: path})
		require.Error(t, err, path)
		assert.Equal(t, rule, res.Metadata[policy.MetaRule], path)
	}
	assert.Zero(t, f.runs.Load())
}

// WithBaseDir does not apply to paths resolved in a workspace: those are
// judged on their workspace-relative form.
func TestWithBaseDirLeavesWorkspacePathsAlone(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", "/elsewhere/**"]}`), policy.WithWorkspace(ws), policy.WithBaseDir("/elsewhere"))
	require.NoError(t, err)
	spec := tool.Spec{Name: "custom", InputSchema: []byte(`{"type":"object","properties":{"where":{"type":"string","x-toolbelt-path":true}}}`)}
	rule, err := p.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"secrets/key"}`))
	require.Error(t, err)
	assert.Equal(t, "global.forbidden_paths", rule)
	// Not /elsewhere/docs/a.md: the workspace's docs/a.md.
	_, err = p.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"docs/a.md"}`))
	assert.NoError(t, err)
}

// A relative pattern matches the path relative to the base directory, as
// it matches the workspace-relative path in a workspace. The first version
// matched it against the joined, absolute path, which no relative pattern
// matches: with WithBaseDir, global.forbidden_paths ["secrets/**"] let a
// model read "secrets/key" (and its absolute spelling).
func TestWithBaseDirKeepsRelativePatterns(t *testing.T) {
	spec := tool.Spec{Name: "custom", InputSchema: []byte(`{"type":"object","properties":{"where":{"type":"string","x-toolbelt-path":true}}}`)}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", "/srv/ws/private/**"]}`), policy.WithBaseDir("/srv/ws"))
	require.NoError(t, err)
	for _, where := range []string{"secrets/key", "./secrets/key", "docs/../secrets/key", "/srv/ws/secrets/key", "private/key", "/srv/ws/private/key"} {
		rule, err := p.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"`+where+`"}`))
		require.Error(t, err, where)
		assert.Equal(t, "global.forbidden_paths", rule, where)
	}
	for _, where := range []string{"docs/key", "/srv/other/secrets/key", "../other/secrets/key", "/srv/ws"} {
		_, err := p.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"`+where+`"}`))
		assert.NoError(t, err, where)
	}
	// A relative allow list judges relative paths too.
	p2, err := policy.Parse([]byte(`global: {allowed_paths: ["docs/**"]}`), policy.WithBaseDir("/srv/ws"))
	require.NoError(t, err)
	_, err = p2.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"docs/a.md"}`))
	assert.NoError(t, err)
	rule, err := p2.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"src/a.go"}`))
	require.Error(t, err)
	assert.Equal(t, "global.allowed_paths", rule)
}
