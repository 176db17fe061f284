package policy_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// extension.WithPriority could place the policy after the result cache
// (auth refuses that order for itself, 69f2f82; the policy did not): the
// cache answered a call from a result it kept before the policy judged
// the call. The mode set to lockdown, which forbids read_report, alice
// was still served the report cached in normal mode; and an executor
// whose policy forbids /srv/secret/** was served a secret another
// executor sharing the cache had read. executor.New now refuses the
// cache placed outside the policy, as it does outside auth, naming the
// priorities and the fix; in their places, both calls are refused.
func TestAttackS29CacheOutsidePolicyAnswersWhatThePolicyRefuses(t *testing.T) {
	type file struct {
		Path string `json:"path" toolbelt:"path"`
	}
	var reads atomic.Int64
	report := tool.Func("read_report", "Read the report", func(context.Context, struct{}) (string, error) {
		reads.Add(1)
		return "the report", nil
	}, tool.ReadOnly())
	readFile := tool.Func("read_file", "Read a file", func(_ context.Context, in file) (string, error) {
		reads.Add(1)
		return "contents of " + in.Path, nil
	}, tool.ReadOnly())
	reg := registry.New()
	reg.MustRegister(report, readFile)
	alice := tool.Principal{ID: "alice"}
	call := func(ex *executor.Executor, name, args string) *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: json.RawMessage(args), Principal: alice})
		return res
	}
	governance := []byte("global:\n  forbidden_paths: [\"/srv/secret/**\"]\ntools:\n  read_report:\n    forbidden_in_modes: [lockdown]\n")

	for _, order := range []struct {
		name   string
		placed func(p *policy.Policy) extension.Extension
	}{
		{"after the cache", func(p *policy.Policy) extension.Extension {
			return extension.WithPriority(p, extension.PriorityCache+50)
		}},
		{"at the cache's priority, given after it", func(p *policy.Policy) extension.Extension {
			return extension.WithPriority(p, extension.PriorityCache)
		}},
	} {
		t.Run(order.name, func(t *testing.T) {
			c := cache.New()
			pol, err := policy.Parse(governance)
			require.NoError(t, err)
			ex, err := executor.New(reg, executor.WithExtensions(c, order.placed(pol)))
			if err == nil {
				require.True(t, call(ex, "read_report", `{}`).OK())
				require.NoError(t, pol.SetMode("lockdown"))
				res := call(ex, "read_report", `{}`)
				assert.False(t, res.OK(), "read_report, forbidden in lockdown, was served from the cache: %q %v", res.Text(), res.Metadata)

				// Another executor, with no policy, shares the cache.
				other := executor.MustNew(reg, executor.WithExtensions(c))
				require.True(t, call(other, "read_file", `{"path": "/srv/secret/key"}`).OK())
				res = call(ex, "read_file", `{"path": "/srv/secret/key"}`)
				assert.False(t, res.OK(), "a forbidden path was served from the cache: %q %v", res.Text(), res.Metadata)
			}
			require.Error(t, err, "the cache outside the policy was taken")
			assert.Contains(t, err.Error(), `extension "cache" runs outside the policy`)
			assert.Contains(t, err.Error(), "extension.WithPriority")
		})
	}

	// In their places the policy judges every call before the cache.
	c := cache.New()
	pol, err := policy.Parse(governance)
	require.NoError(t, err)
	ex, err := executor.New(reg, executor.WithExtensions(c, pol))
	require.NoError(t, err)
	require.True(t, call(ex, "read_report", `{}`).OK())
	require.NoError(t, pol.SetMode("lockdown"))
	assert.Equal(t, tool.CodePolicyDenied, call(ex, "read_report", `{}`).Error.Code)
	other := executor.MustNew(reg, executor.WithExtensions(c))
	require.True(t, call(other, "read_file", `{"path": "/srv/secret/key"}`).OK())
	assert.Equal(t, tool.CodePolicyDenied, call(ex, "read_file", `{"path": "/srv/secret/key"}`).Error.Code)
}
