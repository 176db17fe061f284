package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// hiddenFixture is an executor where bob (role dev) may call status, and
// purge_backups only the role ops may call; purge_backups declares the
// bucket it writes, through declare.
func hiddenFixture(t *testing.T, declare func(json.RawMessage) []tool.Resource, opts ...executor.Option) *executor.Executor {
	t.Helper()
	type purge struct {
		Bucket string `json:"bucket"`
	}
	reg := scRegistry(t,
		tool.Func("purge_backups", "Purge the backups", func(context.Context, purge) (string, error) { return "purged", nil },
			tool.WithRisk(tool.RiskLow), tool.WithResources(declare)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }, tool.ReadOnly()),
	)
	ex, err := executor.New(reg, opts...)
	require.NoError(t, err)
	return ex
}

var reviewBob = tool.Principal{ID: "bob", Roles: []string{"dev"}}

// reviewAuth lets the role ops call purge_backups, and everyone status.
func reviewAuth() *auth.Auth {
	return auth.New(auth.Allow("ops", "purge_backups"), auth.Allow(auth.AnyRole, "status"))
}

// sameAsUnknown asserts that res, the answer to bob's call of
// purge_backups, is what the name purge_backupz (no tool) got, the name
// put in: the code, the message, the retry hint and the status a model or
// an MCP client reads.
func sameAsUnknown(t *testing.T, unknown, res *tool.Result, msg string) {
	t.Helper()
	require.NotNil(t, unknown.Error, msg)
	require.NotNil(t, res.Error, msg)
	assert.Equal(t, tool.CodeNotFound, unknown.Error.Code, msg)
	assert.Equal(t, unknown.Error.Code, res.Error.Code, "%s: bob learns purge_backups exists: %s", msg, res.Error)
	assert.Equal(t, "no tool named \"purge_backups\""+unknown.Error.Message[len("no tool named \"purge_backupz\""):], res.Error.Message, msg)
	assert.Equal(t, unknown.Error.Retryable, res.Error.Retryable, msg)
	assert.Equal(t, unknown.Error.RetryAfter, res.Error.RetryAfter, msg)
	assert.Equal(t, unknown.Status, res.Status, msg)
}

// A rate limiter placed outside auth (a host limiting every caller before
// auth spends work on it, which auth's CheckChain allows) answers a call
// over the limit rate_limited, retryable after a time, before auth ever
// judges it; the executor hid only an unauthorized answer, so bob's call
// of a hidden tool got rate_limited where a name no tool has (which never
// reaches the chain) got not_found.
func TestAttackS29ReviewHiddenToolOverAnOuterRateLimit(t *testing.T) {
	lim := extension.WithPriority(ratelimit.New(ratelimit.PerPrincipal("1/hour")), extension.PriorityAuth-50)
	ex := hiddenFixture(t, nil, executor.WithExtensions(reviewAuth(), lim))
	ctx := context.Background()
	ok, _ := ex.Execute(ctx, tool.Call{ID: "c1", Name: "status", Args: json.RawMessage(`{}`), Principal: reviewBob})
	require.True(t, ok.OK(), "%v", ok.Error)
	unknown, _ := ex.Execute(ctx, tool.Call{ID: "c2", Name: "purge_backupz", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob})
	res, _ := ex.Execute(ctx, tool.Call{ID: "c3", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob})
	sameAsUnknown(t, unknown, res, "over the outer rate limit")
	// The program still reads why, from the cause.
	assert.ErrorIs(t, res.Err(), tool.ErrRateLimited)
}

// The executor checks the caller's context before anything else of a
// registered tool: a call of a hidden tool whose context ended (an agent
// turn's deadline passed while earlier calls of the batch ran) was
// answered cancelled, or "the caller's deadline passed before tool
// "purge_backups" started", where a name no tool has is not_found.
func TestAttackS29ReviewHiddenToolWhenTheContextEnded(t *testing.T) {
	ex := hiddenFixture(t, nil, executor.WithExtensions(reviewAuth()))
	for _, end := range []string{"cancelled", "deadline"} {
		ctx, cancel := context.WithCancel(context.Background())
		if end == "deadline" {
			ctx, cancel = context.WithTimeout(context.Background(), -1)
		}
		cancel()
		unknown, _ := ex.Execute(ctx, tool.Call{ID: end + "1", Name: "purge_backupz", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob})
		res, _ := ex.Execute(ctx, tool.Call{ID: end + "2", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob})
		sameAsUnknown(t, unknown, res, end)
		batch := ex.ExecuteBatch(ctx, []tool.Call{
			{ID: end + "3", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob},
			{ID: end + "4", Name: "purge_backupz", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob},
		})
		sameAsUnknown(t, batch[1], batch[0], end+" batch")
	}
}

// WithMaxOutputBytes caps an extension's own answer after the chain; the
// executor put its not_found answer to a call of a hidden tool before that
// cap, which cut its message (and marked it truncated) where the answer
// to a name no tool has, given before the chain, is not cut.
func TestAttackS29ReviewHiddenToolUnderASmallOutputCap(t *testing.T) {
	ex := hiddenFixture(t, nil, executor.WithExtensions(reviewAuth()), executor.WithMaxOutputBytes(40))
	ctx := context.Background()
	unknown, _ := ex.Execute(ctx, tool.Call{ID: "c1", Name: "purge_backupz", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob})
	res, _ := ex.Execute(ctx, tool.Call{ID: "c2", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob})
	require.Greater(t, len(unknown.Error.Message), 40, "the cap must be below the message for the test to say anything")
	sameAsUnknown(t, unknown, res, "under a 40-byte cap")
}
