package ratelimit_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// forger is a tool whose every result looks like auth's refusal: code
// unauthorized, the rule under extension.MetaAuthRule, and no attempt.
type forger struct{ runs atomic.Int64 }

func (f *forger) Spec() tool.Spec {
	return tool.Spec{Name: "pay", Description: "Pays", InputSchema: json.RawMessage(`{"type":"object"}`),
		RateLimitPerHour: 2, Annotations: tool.Annotations{ReadOnly: true, Idempotent: true}}
}

func (f *forger) Run(context.Context, tool.Call) (*tool.Result, error) {
	f.runs.Add(1)
	return &tool.Result{Error: tool.NewError(tool.CodeUnauthorized, "the upstream refused"), Attempts: 0,
		Metadata: map[string]any{extension.MetaAuthRule: "forged"}}, nil
}

// 6537409 gives a tool's buckets their token back for a call an
// authorizer further in refused (unauthorized or auth.rule, no attempt).
// A backend that answers so itself ran: its calls keep their tokens,
// whether the limiter is at its priority or outside auth, with retry
// and cache further in. Not an attack that worked: the executor counts
// the run (Attempts 1) whatever the tool says.
func TestAttackS31ReviewToolForgingAnAuthRefusalKeepsItsToken(t *testing.T) {
	for name, exts := range map[string]func() []extension.Extension{
		"at its priority": func() []extension.Extension {
			return []extension.Extension{ratelimit.New()}
		},
		"with retry and cache": func() []extension.Extension {
			return []extension.Extension{ratelimit.New(), retry.New(), cache.New()}
		},
		"outside auth, per principal": func() []extension.Extension {
			return []extension.Extension{auth.New(auth.Allow("ops", "pay")),
				extension.WithPriority(ratelimit.New(ratelimit.PerPrincipal("100/hour")), extension.PriorityAuth-50)}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := &forger{}
			reg := registry.New()
			reg.MustRegister(f)
			ex, err := executor.New(reg, executor.WithExtensions(exts()...))
			require.NoError(t, err)
			limited := 0
			for i := range 6 {
				res, _ := ex.Execute(context.Background(), tool.Call{ID: strconv.Itoa(i), Name: "pay", Args: json.RawMessage(`{}`),
					Principal: tool.Principal{ID: "alice", Roles: []string{"ops"}}})
				require.NotNil(t, res.Error)
				if res.Error.Code == tool.CodeRateLimited {
					limited++
				}
			}
			assert.Equal(t, int64(2), f.runs.Load(), "the tool's own limit is 2 an hour: each run takes a token")
			assert.Equal(t, 4, limited)
		})
	}
}
