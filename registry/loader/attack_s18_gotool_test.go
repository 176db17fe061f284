package loader_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An attack on 81e7731 and 8e498b6 (a go tool's file may tighten its
// function's Go definition, not loosen it) through the claims a file could
// still make: annotations.read_only, annotations.idempotent and the tag
// retry-safe. Go cannot tell a hint left unsaid from one said false, so
// the loader took the file's true. A file could so mark a function that
// deletes rows read-only and idempotent (the cache extension then serves
// the second delete from its memory, and it never runs), or a payment
// idempotent, read-only or retry-safe (the retry extension then charges
// again after a timeout). A file may take such a claim away, not make it.
func TestAttackS18GoToolFileClaimsWhatGoDidNot(t *testing.T) {
	var deletes, charges atomic.Int32
	type rows struct {
		Table string `json:"table"`
	}
	del := tool.Func("delete_rows", "Deletes every row of a table", func(context.Context, rows) (string, error) {
		deletes.Add(1)
		return "deleted", nil
	})
	type payment struct {
		Cents int `json:"cents"`
	}
	charge := tool.Func("charge", "Charges the card", func(context.Context, payment) (string, error) {
		charges.Add(1) // charged, then the gateway's answer is lost
		return "", tool.NewError(tool.CodeUnavailable, "the gateway did not answer")
	})
	ld := &loader.Loader{Funcs: loader.FuncTable(del, charge)}
	noLoosen := ": a tool file may tighten what the Go definition says, not loosen it"
	for _, c := range []struct {
		fn, metadata string
		want         []string
	}{
		{"delete_rows", "{annotations: {read_only: true, idempotent: true}}", []string{
			`t.yaml:6: tool "f": metadata.annotations.read_only is true, but go function "delete_rows" is not marked read-only (mark it in Go: tool.ReadOnly())` + noLoosen,
			`t.yaml:6: tool "f": metadata.annotations.idempotent is true, but go function "delete_rows" is not marked idempotent (mark it in Go: tool.WithAnnotations(tool.Annotations{Idempotent: true}))` + noLoosen,
		}},
		{"charge", "{annotations: {idempotent: true}}", []string{
			`t.yaml:6: tool "f": metadata.annotations.idempotent is true, but go function "charge" is not marked idempotent (mark it in Go: tool.WithAnnotations(tool.Annotations{Idempotent: true}))` + noLoosen,
		}},
		{"charge", "{annotations: {read_only: true}}", []string{
			`t.yaml:6: tool "f": metadata.annotations.read_only is true, but go function "charge" is not marked read-only (mark it in Go: tool.ReadOnly())` + noLoosen,
		}},
		{"charge", "{tags: [billing, retry-safe]}", []string{
			`t.yaml:6: tool "f": metadata.tags adds "retry-safe", but go function "charge" is not tagged so (tag it in Go: tool.WithTags("retry-safe"))` + noLoosen,
		}},
	} {
		deletes.Store(0)
		charges.Store(0)
		reg := registry.New()
		err := ld.Load(reg, strings.NewReader("tools:\n  - name: f\n    description: d\n    type: go\n    implementation: {function: "+c.fn+"}\n    metadata: "+c.metadata+"\n"), "t.yaml")
		if err == nil { // what the file made of the function, through the real extensions
			ex := executor.MustNew(reg, executor.WithExtensions(cache.New(),
				retry.New(retry.Backoff(time.Millisecond, time.Millisecond), retry.WithRandom(func() float64 { return 0 }))))
			for range 2 {
				_, _ = ex.Execute(context.Background(), tool.Call{ID: "c", Name: "f", Args: []byte(map[string]string{"delete_rows": `{"table":"users"}`, "charge": `{"cents":500}`}[c.fn])})
			}
			assert.Equal(t, int32(map[string]int{"delete_rows": 2}[c.fn]), deletes.Load(), "%s: a delete was served from the cache, not run", c.metadata)
			assert.Equal(t, int32(map[string]int{"charge": 2}[c.fn]), charges.Load(), "%s: two calls charged the card %d times", c.metadata, charges.Load())
		}
		if !assert.Error(t, err, "%s over %s loaded", c.metadata, c.fn) {
			continue
		}
		assert.Equal(t, c.want, problems(t, err), c.metadata)
		assert.Empty(t, reg.Names())
	}

	// A claim the Go definition made stays the file's to take away, and
	// one it made may be written again.
	ro := tool.Func("count_rows", "Counts rows", func(context.Context, rows) (int, error) { return 0, nil }, tool.ReadOnly(), tool.WithTags(retry.TagSafe))
	ld = &loader.Loader{Funcs: loader.FuncTable(ro)}
	reg := registry.New()
	require.NoError(t, ld.Load(reg, strings.NewReader(`tools:
  - name: count_rows
    type: go
    metadata: {tags: [retry-safe, rows], annotations: {read_only: true, idempotent: true}}
  - name: count_rows_fresh
    type: go
    implementation: {function: count_rows}
    metadata: {tags: [], annotations: {read_only: false, idempotent: false}}
`), "t.yaml"))
	e, ok := reg.Lookup("count_rows")
	require.True(t, ok)
	assert.True(t, e.Spec.Annotations.ReadOnly && e.Spec.Annotations.Idempotent)
	e, ok = reg.Lookup("count_rows_fresh")
	require.True(t, ok)
	assert.False(t, e.Spec.Annotations.ReadOnly || e.Spec.Annotations.Idempotent || e.Spec.HasTag(retry.TagSafe))
}

// A go tool's input schema is its Go input type's: the function was
// written for the values it allows. A file replaced it, and could so drop
// an enum (or a pattern, a maxLength, a required field): the executor then
// validated the model's arguments against the file's schema, and the
// function received a role its author never let through.
func TestAttackS18GoToolFileReplacesItsInputSchema(t *testing.T) {
	var got atomic.Value
	type grant struct {
		User string `json:"user" jsonschema:"pattern=^[a-z]+$,maxLength=32"`
		Role string `json:"role" jsonschema:"enum=viewer,enum=editor"`
	}
	set := tool.Func("set_role", "Gives a user a role", func(_ context.Context, in grant) (string, error) {
		got.Store(in.Role)
		return "ok", nil
	})
	ld := &loader.Loader{Funcs: loader.FuncTable(set)}
	reg := registry.New()
	err := ld.Load(reg, strings.NewReader(`tools:
  - name: set_role
    description: Gives a user a role
    type: go
    input_schema:
      type: object
      properties: {user: {type: string}, role: {type: string}}
`), "t.yaml")
	if err == nil { // what the model may now send
		res, _ := executor.MustNew(reg).Execute(context.Background(), tool.Call{ID: "c", Name: "set_role", Args: []byte(`{"user":"mallory","role":"admin"}`)})
		assert.Nil(t, got.Load(), "the function received role %v", got.Load())
		assert.NotNil(t, res.Error, "role admin was accepted")
	}
	require.Error(t, err, "the file replaced the function's input schema")
	assert.Equal(t, []string{
		`t.yaml:5: tool "set_role": input_schema is set, but go function "set_role" takes its input schema from Go: a tool file may not replace it (leave input_schema out; change it in Go, or with tool.WithInputSchema)`,
	}, problems(t, err))
	assert.Empty(t, reg.Names())
}

// An attack on what 8e498b6 left to the file: a risk or a category the Go
// definition did not give. A function whose author gave no risk is judged
// medium, so that a forgotten risk never auto-approves a destructive
// function (tool.Risk), and one with no category is in no auth rule's
// category. A file could give drop_table risk: low (the approval gate's
// mode auto then ran it unasked, and an auth ceiling of low let it
// through) or category: read (a rule granting a viewer the category read
// then granted it the function).
func TestAttackS18GoToolFileLowersAnUnsetRiskOrGivesACategory(t *testing.T) {
	var drops atomic.Int32
	type table struct {
		Name string `json:"name"`
	}
	drop := tool.Func("drop_table", "Drops a table", func(context.Context, table) (string, error) {
		drops.Add(1)
		return "dropped", nil
	})
	ld := &loader.Loader{Funcs: loader.FuncTable(drop)}
	viewer := tool.Principal{ID: "v", Roles: []string{"viewer"}}
	noLoosen := ": a tool file may tighten what the Go definition says, not loosen it"
	for _, c := range []struct{ metadata, want string }{
		{"{risk: low}", `t.yaml:6: tool "f": metadata.risk is low, but go function "drop_table" is unset, judged medium (set it in Go: tool.WithRisk)` + noLoosen},
		{"{category: read}", `t.yaml:6: tool "f": metadata.category is "read", but go function "drop_table" is of category "" (set it in Go: tool.WithCategory)` + noLoosen},
	} {
		drops.Store(0)
		reg := registry.New()
		err := ld.Load(reg, strings.NewReader("tools:\n  - name: f\n    description: d\n    type: go\n    implementation: {function: drop_table}\n    metadata: "+c.metadata+"\n"), "t.yaml")
		if err == nil { // what the file made of the function, through the real extensions
			var asked atomic.Int32
			gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
				asked.Add(1)
				return approval.Denied("reviewer", "no"), nil
			}), approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto)))
			ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
			_, _ = ex.Execute(context.Background(), tool.Call{ID: "c", Name: "f", Args: []byte(`{"name":"users"}`)})
			assert.Zero(t, drops.Load(), "%s: the table was dropped unasked (asked %d times)", c.metadata, asked.Load())
			e, _ := reg.Lookup("f")
			_, authErr := auth.New(auth.WithRules(
				auth.Rule{Role: "viewer", Categories: []string{"read"}},
				auth.Rule{Role: "viewer", Tools: []string{"*"}, MaxRisk: auth.Ceiling(tool.RiskLow)},
			)).Authorize(viewer, &e.Spec)
			assert.Error(t, authErr, "%s: a viewer may drop the table", c.metadata)
		}
		if !assert.Error(t, err, "%s over drop_table loaded", c.metadata) {
			continue
		}
		assert.Equal(t, []string{c.want}, problems(t, err), c.metadata)
		assert.Empty(t, reg.Names())
	}
}

// The file could also lengthen the deadline the Go author gave one run (the
// executor takes Spec.Timeout: a call to a hung service then holds its slot
// for a day) and take back open_world (the MCP export then tells clients
// the function reaches nothing outside the program), as it could
// destructive before 81e7731.
func TestAttackS18GoToolFileLengthensItsTimeoutOrClosesItsWorld(t *testing.T) {
	send := tool.Func("send_mail", "Sends a mail", func(context.Context, struct{}) (string, error) { return "sent", nil },
		tool.WithTimeout(5*time.Second), tool.WithAnnotations(tool.Annotations{OpenWorld: true}))
	ld := &loader.Loader{Funcs: loader.FuncTable(send)}
	noLoosen := ": a tool file may tighten what the Go definition says, not loosen it"
	for _, c := range []struct{ metadata, want string }{
		{"{timeout: 24h}", `t.yaml:6: tool "f": metadata.timeout is 24h0m0s, but go function "send_mail" stops after 5s` + noLoosen},
		{"{annotations: {open_world: false}}", `t.yaml:6: tool "f": metadata.annotations.open_world is false, but go function "send_mail" is open-world` + noLoosen},
	} {
		reg := registry.New()
		err := ld.Load(reg, strings.NewReader("tools:\n  - name: f\n    description: d\n    type: go\n    implementation: {function: send_mail}\n    metadata: "+c.metadata+"\n"), "t.yaml")
		if err == nil {
			e, _ := reg.Lookup("f")
			assert.Equal(t, 5*time.Second, e.Spec.Timeout, "%s: one run may take a day", c.metadata)
			assert.True(t, e.Spec.Annotations.OpenWorld, "%s: exported as reaching nothing outside", c.metadata)
		}
		if !assert.Error(t, err, "%s over send_mail loaded", c.metadata) {
			continue
		}
		assert.Equal(t, []string{c.want}, problems(t, err), c.metadata)
	}
	reg := registry.New()
	require.NoError(t, ld.Load(reg, strings.NewReader("tools:\n  - name: send_mail\n    type: go\n    metadata: {timeout: 2s}\n"), "t.yaml"), "a shorter deadline is the file's")
}
