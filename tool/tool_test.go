package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

func TestErrorIsMatchesByCode(t *testing.T) {
	for _, c := range tool.Codes {
		t.Run(string(c), func(t *testing.T) {
			err := fmt.Errorf("wrapped: %w", tool.NewError(c, "boom"))
			assert.True(t, errors.Is(err, &tool.Error{Code: c}))
			var te *tool.Error
			require.True(t, errors.As(err, &te))
			assert.Equal(t, c, te.Code)
			assert.Equal(t, c.Retryable(), te.Retryable)
			assert.True(t, c.Valid())
			for _, other := range tool.Codes {
				if other != c {
					assert.False(t, errors.Is(err, &tool.Error{Code: other}), "matched %s", other)
				}
			}
		})
	}
}

func TestCodeRetryabilityAndStatus(t *testing.T) {
	retryable := map[tool.Code]bool{
		tool.CodeRateLimited: true, tool.CodeTimeout: true, tool.CodeConcurrencyLimit: true,
		tool.CodeConflict: true, tool.CodeUnavailable: true,
	}
	for _, c := range tool.Codes {
		assert.Equal(t, retryable[c], c.Retryable(), "code %s", c)
	}
	assert.Equal(t, tool.StatusDenied, tool.CodeUnauthorized.Status())
	assert.Equal(t, tool.StatusDenied, tool.CodeApprovalDenied.Status())
	assert.Equal(t, tool.StatusTimedOut, tool.CodeTimeout.Status())
	assert.Equal(t, tool.StatusCancelled, tool.CodeCancelled.Status())
	assert.Equal(t, tool.StatusFailed, tool.CodePanic.Status())
	assert.False(t, tool.Code("nope").Valid())
}

func TestAsError(t *testing.T) {
	assert.Nil(t, tool.AsError(nil))
	assert.Equal(t, tool.CodeTimeout, tool.AsError(context.DeadlineExceeded).Code)
	assert.Equal(t, tool.CodeCancelled, tool.AsError(fmt.Errorf("x: %w", context.Canceled)).Code)
	e := tool.AsError(errors.New("disk on fire"))
	assert.Equal(t, tool.CodeInternal, e.Code)
	assert.Equal(t, "internal: disk on fire", e.Error())
	orig := tool.NewError(tool.CodeConflict, "busy").WithRetryAfter(time.Second)
	assert.Same(t, orig, tool.AsError(fmt.Errorf("w: %w", orig)))
	assert.Equal(t, time.Second, orig.RetryAfter)
	wrapped := tool.Errorf(tool.CodeInternal, "open: %w", errors.ErrUnsupported)
	assert.ErrorIs(t, wrapped, errors.ErrUnsupported)
}

func TestRiskText(t *testing.T) {
	for _, r := range []tool.Risk{tool.RiskLow, tool.RiskMedium, tool.RiskHigh} {
		b, err := r.MarshalText()
		require.NoError(t, err)
		var back tool.Risk
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, r, back)
	}
	_, err := tool.ParseRisk("extreme")
	assert.ErrorContains(t, err, "use low, medium or high")
	_, err = tool.Risk(9).MarshalText()
	assert.Error(t, err)
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"search", "read_file", "git-log", "_x", "A1"} {
		assert.NoError(t, tool.CheckName(ok), ok)
	}
	for name, want := range map[string]string{
		"":                       "empty",
		"1tool":                  "not portable",
		"has space":              "not portable",
		"dot.name":               "not portable",
		string(make([]byte, 65)): "at most 64",
	} {
		assert.ErrorContains(t, tool.CheckName(name), want, "name %q", name)
	}
}

type Address struct {
	City    string `json:"city"`
	Country string `json:"country,omitempty"`
}

type Args struct {
	Query string   `json:"query" jsonschema_description:"What to look for, in plain words"`
	Limit int      `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50"`
	Kind  string   `json:"kind,omitempty" jsonschema:"enum=code,enum=docs"`
	Near  *Address `json:"near,omitempty"`
	Token string   `json:"token,omitempty" toolbelt:"secret"`
}

type Out struct {
	Count int `json:"count"`
}

func TestFuncReflectsSchemas(t *testing.T) {
	ft, err := tool.NewFunc("search", "Search", func(_ context.Context, in Args) (Out, error) {
		return Out{Count: in.Limit}, nil
	}, tool.WithRisk(tool.RiskMedium), tool.WithCategory("kb"), tool.WithTags("a", "b"), tool.ReadOnly(),
		tool.WithTimeout(time.Second), tool.WithVersion("2"), tool.WithModes(tool.ModeNormal), tool.WithRateLimit(10))
	require.NoError(t, err)
	spec := ft.Spec()
	var in map[string]any
	require.NoError(t, json.Unmarshal(spec.InputSchema, &in))
	assert.Equal(t, "object", in["type"])
	assert.NotContains(t, in, "$schema")
	assert.NotContains(t, in, "$id")
	assert.ElementsMatch(t, []any{"query"}, in["required"])
	near := in["properties"].(map[string]any)["near"].(map[string]any)
	assert.Equal(t, "object", near["type"], "nested struct is inlined, not referenced")
	assert.ElementsMatch(t, []any{"city"}, near["required"])
	assert.Equal(t, []string{"token"}, spec.Secrets)
	assert.NotEmpty(t, spec.OutputSchema)
	assert.Equal(t, tool.RiskMedium, spec.Risk)
	assert.True(t, spec.Annotations.ReadOnly && spec.Annotations.Idempotent)
	assert.True(t, spec.HasTag("b"))
	assert.True(t, spec.AllowsMode(tool.ModeNormal))
	assert.False(t, spec.AllowsMode(tool.ModeLockdown))

	res, err := ft.Run(context.Background(), tool.Call{Args: json.RawMessage(`{"query":"x","limit":7}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"count":7}`, string(res.Output))
}

func TestFuncOutputShapes(t *testing.T) {
	str := tool.Func("s", "The s test tool", func(context.Context, struct{}) (string, error) { return "hello", nil })
	res, err := str.Run(context.Background(), tool.Call{})
	require.NoError(t, err)
	assert.Equal(t, "hello", res.Text())
	assert.Empty(t, res.Output)

	num := tool.Func("n", "The n test tool", func(context.Context, struct{}) ([]int, error) { return []int{1, 2}, nil })
	res, err = num.Run(context.Background(), tool.Call{})
	require.NoError(t, err)
	assert.Equal(t, "[1,2]", res.Text())

	m := tool.Func("m", "The m test tool", func(context.Context, map[string]any) (map[string]int, error) { return map[string]int{"a": 1}, nil })
	res, err = m.Run(context.Background(), tool.Call{Args: json.RawMessage(`{"free":"form"}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":1}`, string(res.Output))

	failing := tool.Func("f", "The f test tool", func(context.Context, struct{}) (string, error) {
		return "", tool.NewError(tool.CodeConflict, "locked")
	})
	_, err = failing.Run(context.Background(), tool.Call{})
	assert.ErrorIs(t, err, tool.ErrConflict)
}

type Node struct {
	Name     string  `json:"name"`
	Children []*Node `json:"children,omitempty"`
}

type Loop struct {
	*Loop
	X int `json:"x"`
}

type Inner struct {
	A int `json:"a"`
}

type Embeds struct {
	Inner
	B int `json:"b"`
}

func TestFuncLintsTags(t *testing.T) {
	cases := []struct {
		name string
		mk   func() error
		want []string
	}{
		{"description cut at comma", func() error {
			type A struct {
				Q string `json:"q" jsonschema:"description=Find things, fast"`
			}
			_, err := tool.NewFunc("t", "", func(context.Context, A) (string, error) { return "", nil })
			return err
		}, []string{"field q", "cut at a comma", "jsonschema_description"}},
		{"required on omitempty", func() error {
			type A struct {
				Q string `json:"q,omitempty" jsonschema:"required"`
			}
			_, err := tool.NewFunc("t", "", func(context.Context, A) (string, error) { return "", nil })
			return err
		}, []string{"field q", "omitempty", "required"}},
		{"chan field", func() error {
			type A struct {
				C chan int `json:"c"`
			}
			_, err := tool.NewFunc("t", "", func(context.Context, A) (string, error) { return "", nil })
			return err
		}, []string{"field c", "kind chan", "json:\"-\""}},
		{"func field", func() error {
			type A struct {
				F func() `json:"f"`
			}
			_, err := tool.NewFunc("t", "", func(context.Context, A) (string, error) { return "", nil })
			return err
		}, []string{"field f", "kind func"}},
		{"complex field", func() error {
			type A struct {
				Z complex128 `json:"z"`
			}
			_, err := tool.NewFunc("t", "", func(context.Context, A) (string, error) { return "", nil })
			return err
		}, []string{"field z", "complex128"}},
		{"recursive type", func() error {
			_, err := tool.NewFunc("t", "", func(context.Context, Node) (string, error) { return "", nil })
			return err
		}, []string{"children[]", "refers back", "recursive"}},
		{"embedded pointer cycle", func() error {
			_, err := tool.NewFunc("t", "", func(context.Context, Loop) (string, error) { return "", nil })
			return err
		}, []string{"embedded pointer cycle", "Loop"}},
		{"unknown tag key", func() error {
			type A struct {
				N int `json:"n" jsonschema:"minimun=1"`
			}
			_, err := tool.NewFunc("t", "", func(context.Context, A) (string, error) { return "", nil })
			return err
		}, []string{"field n", "unknown jsonschema tag key \"minimun\""}},
		{"non-object input", func() error {
			_, err := tool.NewFunc("t", "", func(context.Context, string) (string, error) { return "", nil })
			return err
		}, []string{"must be a struct"}},
		{"bad name", func() error {
			_, err := tool.NewFunc("bad name", "", func(context.Context, struct{}) (string, error) { return "", nil })
			return err
		}, []string{"not portable"}},
		{"raw schema not an object", func() error {
			_, err := tool.NewFunc("t", "", func(context.Context, map[string]any) (string, error) { return "", nil },
				tool.WithInputSchema(json.RawMessage(`{"type":"array"}`)))
			return err
		}, []string{"root must be", "object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.mk()
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestFuncEmbeddedStructIsInlined(t *testing.T) {
	ft, err := tool.NewFunc("t", "", func(context.Context, Embeds) (string, error) { return "", nil })
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(ft.Spec().InputSchema, &s))
	props := s["properties"].(map[string]any)
	assert.Contains(t, props, "a")
	assert.Contains(t, props, "b")
}

func TestFuncCheckCarriesError(t *testing.T) {
	type A struct {
		C chan int `json:"c"`
	}
	tl := tool.Func("t", "The t test tool", func(context.Context, A) (string, error) { return "", nil })
	c, ok := tl.(tool.Checker)
	require.True(t, ok)
	assert.ErrorContains(t, c.Check(), "kind chan")
	_, err := tl.Run(context.Background(), tool.Call{})
	assert.ErrorIs(t, err, tool.ErrInternal)
}

func TestNewRawTool(t *testing.T) {
	raw := tool.New("echo", "Echo", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		return &tool.Result{Output: c.Args}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)),
		tool.WithResources(func(json.RawMessage) []tool.Resource { return []tool.Resource{{Key: "k", Access: tool.Write}} }))
	require.NoError(t, raw.(tool.Checker).Check())
	assert.Equal(t, []tool.Resource{{Key: "k", Access: tool.Write}}, raw.(tool.ResourceDeclarer).Resources(nil))

	bad := tool.New("echo", "The echo test tool", nil, tool.WithInputSchema(json.RawMessage(`{"type":"string"}`)))
	err := bad.(tool.Checker).Check()
	assert.ErrorContains(t, err, "run function is nil")
	assert.ErrorContains(t, err, "root must be")
}

func TestEmitter(t *testing.T) {
	var got []tool.Event
	ctx := tool.WithEmitter(context.Background(), func(e tool.Event) { got = append(got, e) })
	buf := []byte("chunk")
	tool.EmitOutput(ctx, "stdout", buf)
	buf[0] = 'X'
	tool.Emit(ctx, tool.Event{Kind: tool.EventRetried})
	tool.Emit(context.Background(), tool.Event{Kind: tool.EventRetried}) // no emitter: no-op
	require.Len(t, got, 2)
	assert.Equal(t, "chunk", string(got[0].Data), "EmitOutput copies the chunk")
	assert.Equal(t, tool.EventRetried, got[1].Kind)
}

func TestPrincipalContext(t *testing.T) {
	_, ok := tool.PrincipalFrom(context.Background())
	assert.False(t, ok)
	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "u1", Roles: []string{"admin"}})
	p, ok := tool.PrincipalFrom(ctx)
	require.True(t, ok)
	assert.True(t, p.HasRole("admin"))
	assert.False(t, p.HasRole("root"))
}

// A Go function learns who called it from its context: the principal of
// the call, which wins over one the context already carried; a call with
// no principal acts for nobody (the executor gives a call its context's
// principal before it runs, so what reaches the tool without one is
// anonymous: a job run by a worker whose context carries its own).
func TestFuncSeesTheCallsPrincipal(t *testing.T) {
	whoami := tool.Func("whoami", "Who is asking", func(ctx context.Context, _ struct{}) (string, error) {
		p, ok := tool.PrincipalFrom(ctx)
		if !ok {
			return "nobody", nil
		}
		return p.Tenant + "/" + p.ID, nil
	})
	run := func(ctx context.Context, p tool.Principal) string {
		res, err := whoami.Run(ctx, tool.Call{Name: "whoami", Principal: p})
		require.NoError(t, err)
		return res.Text()
	}
	ctx := context.Background()
	assert.Equal(t, "acme/alice", run(ctx, tool.Principal{ID: "alice", Tenant: "acme"}))
	outer := tool.WithPrincipal(ctx, tool.Principal{ID: "mallory", Tenant: "evil"})
	assert.Equal(t, "globex/bob", run(outer, tool.Principal{ID: "bob", Tenant: "globex"}), "the call's principal wins")
	assert.Equal(t, "nobody", run(outer, tool.Principal{}), "a call with no principal acts for nobody")
	assert.Equal(t, "nobody", run(outer, tool.Principal{Roles: []string{"admin"}}), "roles without an ID grant nothing")
	assert.Equal(t, "nobody", run(ctx, tool.Principal{}))
}

type PlainOut struct {
	Names []string         `json:"names"`
	Byte  []byte           `json:"byte"`
	Ptr   *Address         `json:"ptr"`
	Opt   []int            `json:"opt,omitempty"`
	Map   map[string]*Item `json:"map"`
	When  time.Time        `json:"when"`
}

type Item struct {
	N int `json:"n"`
}

type ConstrainedOut struct {
	Level string `json:"level" jsonschema:"enum=low,enum=high"`
}

func TestOutputSchemaAcceptsWhatEncodingJSONWrites(t *testing.T) {
	ft, err := tool.NewFunc("t", "", func(context.Context, struct{}) (PlainOut, error) { return PlainOut{}, nil })
	require.NoError(t, err)
	assert.True(t, ft.OutputConforms(), "no value constraints: output is valid by construction")
	var s map[string]any
	require.NoError(t, json.Unmarshal(ft.Spec().OutputSchema, &s))
	props := s["properties"].(map[string]any)
	typeOf := func(m any) any { return m.(map[string]any)["type"] }
	assert.Equal(t, []any{"array", "null"}, typeOf(props["names"]), "a nil slice encodes as null")
	assert.Equal(t, []any{"string", "null"}, typeOf(props["byte"]))
	assert.Equal(t, []any{"object", "null"}, typeOf(props["ptr"]))
	assert.Equal(t, []any{"object", "null"}, typeOf(props["map"]))
	assert.Equal(t, "array", typeOf(props["opt"]), "omitempty fields are never null")
	mapVals := props["map"].(map[string]any)["additionalProperties"]
	assert.Equal(t, []any{"object", "null"}, typeOf(mapVals), "map values that are pointers may be null")

	// The input schema of the same type is not loosened.
	in, err := tool.NewFunc("t", "", func(context.Context, PlainOut) (string, error) { return "", nil })
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(in.Spec().InputSchema, &s))
	assert.Equal(t, "array", typeOf(s["properties"].(map[string]any)["names"]))

	c, err := tool.NewFunc("c", "", func(context.Context, struct{}) (ConstrainedOut, error) { return ConstrainedOut{}, nil })
	require.NoError(t, err)
	assert.False(t, c.OutputConforms(), "an enum can be broken by a Go value: validate at run time")
}

// wrapped is a tool with a spec of its own over another tool.
type wrapped struct{ tool.Tool }

func (w wrapped) Unwrap() tool.Tool { return w.Tool }

type namer interface{ Name() string }

type named struct{ tool.Tool }

func (named) Name() string { return "inner" }

// As looks through wrappers as errors.As looks through errors, and stops on
// a nil tool and on a cycle.
func TestAsLooksThroughWrappers(t *testing.T) {
	plain := tool.Func("f", "F", func(context.Context, struct{}) (string, error) { return "", nil })
	n, ok := tool.As[namer](wrapped{wrapped{named{plain}}})
	require.True(t, ok)
	assert.Equal(t, "inner", n.Name())
	_, ok = tool.As[namer](wrapped{plain})
	assert.False(t, ok, "no tool in the chain is a namer")
	_, ok = tool.As[namer](wrapped{nil})
	assert.False(t, ok)
	c := &cycle{}
	c.next = c
	_, ok = tool.As[namer](c)
	assert.False(t, ok, "a cycle ends")
}

type cycle struct {
	tool.Tool
	next tool.Tool
}

func (c *cycle) Unwrap() tool.Tool { return c.next }

// Unwrapped lists the tools beneath a wrapper, in order, and stops on a
// nil tool and after 16 on a cycle.
func TestUnwrapped(t *testing.T) {
	plain := tool.Func("f", "F", func(context.Context, struct{}) (string, error) { return "", nil })
	inner := named{plain}
	got := tool.Unwrapped(wrapped{wrapped{inner}})
	require.Len(t, got, 2)
	assert.Equal(t, wrapped{inner}, got[0])
	assert.Equal(t, inner, got[1])
	assert.Empty(t, tool.Unwrapped(plain))
	assert.Empty(t, tool.Unwrapped(wrapped{nil}))
	c := &cycle{}
	c.next = c
	assert.Len(t, tool.Unwrapped(c), 16, "a cycle ends")
}

// renamed runs its tool under another name.
type renamed struct {
	tool.Tool
	name string
}

func (r renamed) Spec() tool.Spec {
	s := r.Tool.Spec()
	s.Name = r.name
	return s
}
func (r renamed) Unwrap() tool.Tool { return r.Tool }

// UnwrappedNames lists the names of the tools beneath a wrapper other than
// the name called, each once.
func TestUnwrappedNames(t *testing.T) {
	pay := tool.Func("pay", "Pay", func(context.Context, struct{}) (string, error) { return "", nil })
	settle := renamed{wrapped{pay}, "settle"}
	assert.Equal(t, []string{"pay"}, tool.UnwrappedNames(settle, "settle"))
	assert.Empty(t, tool.UnwrappedNames(settle, "pay"))
	assert.Empty(t, tool.UnwrappedNames(pay, "pay"))
	assert.Equal(t, []string{"settle", "pay"}, tool.UnwrappedNames(renamed{settle, "outer"}, "outer"))
}
