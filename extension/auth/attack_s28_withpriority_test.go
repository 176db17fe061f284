package auth_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// extension.WithPriority returned an extension with auth's name and Wrap
// only: executor.New no longer ran auth's Check, CheckRegistry and
// CheckChain on it. A rule naming a tool that does not exist ("delete_rep")
// was taken, and with AllowUnlisted the real delete_repo ran for a
// principal with no roles; auth re-placed after the cache (950) was taken,
// where the cache answers before anyone is authorised. The re-placed
// extension now keeps auth reachable (extension.As), and its checks run
// with the priority it was given.
func TestAttackS28WithPriorityDropsAuthsChecks(t *testing.T) {
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("delete_repo", "Delete a repository", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "deleted", nil
	}, tool.WithRisk(tool.RiskLow)))
	call := tool.Call{ID: "c1", Name: "delete_repo", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "mallory"}}

	t.Run("a rule naming no tool", func(t *testing.T) {
		typo := auth.New(auth.Allow("admin", "delete_rep"), auth.AllowUnlisted())
		ex, err := executor.New(reg, executor.WithExtensions(extension.WithPriority(typo, extension.PriorityAuth)))
		if err == nil {
			res, _ := ex.Execute(context.Background(), call)
			assert.False(t, res.OK(), "a principal with no roles ran delete_repo: %q", res.Text())
		}
		require.Error(t, err, "a rule naming an unregistered tool was taken")
		assert.Contains(t, err.Error(), `names tool "delete_rep", which is not registered: did you mean "delete_repo"?`)
	})

	t.Run("a rule without tools", func(t *testing.T) {
		_, err := executor.New(reg, executor.WithExtensions(extension.WithPriority(auth.New(auth.Allow("admin")), 450)))
		require.Error(t, err, "a configuration auth's Check refuses was taken")
		assert.Contains(t, err.Error(), `Allow("admin") names no tools`)
	})

	t.Run("auth after the cache", func(t *testing.T) {
		a := auth.New(auth.Allow("admin", "delete_repo"))
		_, err := executor.New(reg, executor.WithExtensions(extension.WithPriority(a, 950), cache.New(cache.SharedAcrossPrincipals())))
		require.Error(t, err, "auth placed after the cache was taken")
		assert.Contains(t, err.Error(), `extension "cache" runs outside auth (priority 900, auth's 950)`)

		// Re-placed twice, it is still auth, at the priority it was given last.
		_, err = executor.New(reg, executor.WithExtensions(extension.WithPriority(extension.WithPriority(a, 100), 950), cache.New()))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `(priority 900, auth's 950)`)

		// Re-placed where the cache is still inside it, it is taken.
		_, err = executor.New(reg, executor.WithExtensions(extension.WithPriority(a, 450), cache.New()))
		require.NoError(t, err)
	})
	assert.Zero(t, runs.Load())
}
