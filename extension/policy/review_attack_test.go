package policy_test

import (
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

// The attack: the workspace was opened with a hide function, only not
// the policy's (one that hides .env files the application's own way, or
// another policy's Hide). Workspace.Hides said yes, so the check of
// cc33a1a let the tools through, and the search read the key under
// **/.ssh/**. The policy now asks the workspace about a path each of its
// global patterns names: one the workspace does not hide is refused.
func TestAttackAWorkspaceHidingSomethingElseIsNotHidingThePolicy(t *testing.T) {
	ex := hideFixture(t, func(*policy.Policy) []sandbox.WorkspaceOption {
		envOnly := func(rel, _ string) string {
			if rel == ".env" {
				return "the application's own .env rule"
			}
			return ""
		}
		return []sandbox.WorkspaceOption{sandbox.WithHide(envOnly)}
	})
	search := callRaw(t, ex, "search_files", `{"pattern":"SSH-PRIVATE","path":"."}`)
	assert.NotContains(t, search.Text(), sshSecret, "the search read the forbidden key")
	require.NotNil(t, search.Error)
	assert.Equal(t, tool.CodePolicyDenied, search.Error.Code)
	assert.Contains(t, search.Error.Message, "**/.ssh/**", "the refusal names the pattern the workspace does not hide")
}

// The workspace is asked about a path each pattern names, whatever its
// wildcards: with the policy's Hide no pattern is taken for unhidden, and
// with a hide function that hides none of them the calls are refused.
func TestHideProbeOfEveryPatternShape(t *testing.T) {
	for _, pattern := range []string{"**/.ssh/**", "secrets/{a,b{c,d}}/*.key", "[sS]ecrets/**", "cache/??/data", `a\*b`, "logs/*.{log,txt}"} {
		gov := []byte(`global: {forbidden_paths: ["` + strings.ReplaceAll(pattern, `\`, `\\`) + `"]}`)
		open := func(hide func(*policy.Policy) sandbox.HideFunc) *tool.Result {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("hello"), 0o644))
			pol, err := policy.Parse(gov)
			require.NoError(t, err, pattern)
			// No secrets: the default ones ("**/*.key") would hide a
			// probe of secrets/{a,b{c,d}}/*.key whatever hide does.
			ws, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets(), sandbox.WithHide(hide(pol)))
			require.NoError(t, err)
			t.Cleanup(func() { ws.Close() })
			reg := registry.New()
			require.NoError(t, reg.Register(builtin.Files(ws)...))
			return callRaw(t, executor.MustNew(reg, executor.WithExtensions(pol)), "list_directory", `{"path":"."}`)
		}
		served := open(func(pol *policy.Policy) sandbox.HideFunc { return pol.Hide })
		assert.Nil(t, served.Error, "%s: the policy's own Hide was taken for not hiding it: %+v", pattern, served.Error)
		refused := open(func(*policy.Policy) sandbox.HideFunc { return func(string, string) string { return "" } })
		if assert.NotNil(t, refused.Error, "%s: a hide function hiding nothing served the call", pattern) {
			assert.Equal(t, tool.CodePolicyDenied, refused.Error.Code)
		}
	}
}

// An absolute pattern naming paths in the workspace ($WS/secrets/**) is
// asked about too: a hide function that hides nothing let search_files
// read secrets/key.
func TestAttackAbsolutePatternNotHiddenByTheWorkspace(t *testing.T) {
	for _, hides := range []bool{false, true} {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte(sshSecret), 0o600))
		envs := func(k string) (string, bool) {
			if k == "WS" {
				return dir, true
			}
			return "", false
		}
		pol, err := policy.Parse([]byte(`global: {forbidden_paths: ["$WS/secrets/**"]}`), policy.WithEnv(envs))
		require.NoError(t, err)
		hide := func(string, string) string { return "" }
		if hides {
			hide = pol.Hide
		}
		ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(hide))
		require.NoError(t, err)
		t.Cleanup(func() { ws.Close() })
		reg := registry.New()
		require.NoError(t, reg.Register(builtin.Files(ws)...))
		search := callRaw(t, executor.MustNew(reg, executor.WithExtensions(pol)), "search_files", `{"pattern":"SSH-PRIVATE","path":"."}`)
		assert.NotContains(t, search.Text(), sshSecret, "hides=%v: the search read the forbidden key", hides)
		if hides {
			assert.Nil(t, search.Error, "the policy's own Hide was taken for not hiding: %+v", search.Error)
		} else if assert.NotNil(t, search.Error) {
			assert.Equal(t, tool.CodePolicyDenied, search.Error.Code)
		}
	}
}

// A hide function that hides more than the policy, or calls the policy's
// Hide among its own rules, serves the calls.
func TestAWorkspaceHidingThePolicyAndMoreServesTheCalls(t *testing.T) {
	ex := hideFixture(t, func(pol *policy.Policy) []sandbox.WorkspaceOption {
		envOnly := func(rel, _ string) string {
			if rel == "notes.txt" {
				return "private notes"
			}
			return ""
		}
		return []sandbox.WorkspaceOption{sandbox.WithHide(envOnly), sandbox.WithHide(func(rel, abs string) string { return pol.Hide(rel, abs) })}
	})
	list := callRaw(t, ex, "list_directory", `{"path":"."}`)
	require.Nil(t, list.Error, "%+v", list.Error)
	assert.Contains(t, list.Text(), "README")
	assert.NotContains(t, list.Text(), ".ssh/")
}
