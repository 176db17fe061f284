package ratelimit_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool file may register a go function under a name of its own (the
// loader's go tool, which unwraps to the function): "tidy" over "charge".
// The limiter keyed a tool's bucket by the name called only, so the
// function's limit was its name's: with the spec's rate_limit_per_hour (2)
// each name had two calls an hour of its own, and with PerTool("charge")
// the alias was not limited at all. The policy and approval rules written
// for a function's name hold for the tools that run it (tool.Unwrapped);
// the limits written for it hold too.
func TestAttackS29AliasDoesNotStepRoundAToolsLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []tool.Option
		lim  []ratelimit.Option
	}{
		{"spec limit", []tool.Option{tool.WithRateLimit(2)}, nil},
		{"PerTool", nil, []ratelimit.Option{ratelimit.PerTool("charge", "2/hour")}},
		{"PerToolPrincipal", nil, []ratelimit.Option{ratelimit.IgnoreSpecLimits(), ratelimit.PerToolPrincipal("2/hour")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var charges atomic.Int32
			charge := tool.Func("charge", "Charges the card", func(context.Context, struct{}) (string, error) {
				charges.Add(1)
				return "charged", nil
			}, tc.opts...)
			reg := registry.New()
			reg.MustRegister(charge)
			ld := &loader.Loader{Funcs: loader.FuncTable(charge)}
			require.NoError(t, ld.Load(reg, strings.NewReader("tools:\n  - name: tidy\n    description: Tidies up\n    type: go\n    implementation: {function: charge}\n"), "tools.yaml"))

			ex := executor.MustNew(reg, executor.WithExtensions(ratelimit.New(tc.lim...)))
			ctx := context.Background()
			p := tool.Principal{ID: "alice"}
			for range 2 {
				_, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "charge", Args: json.RawMessage(`{}`), Principal: p})
				require.NoError(t, err)
			}
			for range 3 {
				_, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "tidy", Args: json.RawMessage(`{}`), Principal: p})
				assert.ErrorIs(t, err, tool.ErrRateLimited, "charge's two calls this hour are spent, and tidy runs charge")
			}
			assert.Equal(t, int32(2), charges.Load(), "the card was charged %d times in an hour that allows 2", charges.Load())

			// The alias's own limit still holds, and a refusal names the
			// bucket that ran out.
			res, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "tidy", Args: json.RawMessage(`{}`), Principal: p})
			require.Error(t, err)
			assert.Contains(t, err.Error(), `"tidy" (the limit of "charge", which it runs)`)
			in, ok := res.Metadata[ratelimit.MetaKey].(ratelimit.Info)
			require.True(t, ok)
			assert.Contains(t, in.Key, "charge")
		})
	}
}
