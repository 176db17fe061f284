package executor_test

// TestMain (goleak) for the whole executor package lives in this file.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/benchcore"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The tool of the core benchmark doubles as the tests' main fixture.
type (
	Address    = benchcore.Address
	SearchArgs = benchcore.SearchArgs
	SearchOut  = benchcore.SearchOut
)

var search = benchcore.Search

func newExec(t testing.TB, opts []executor.Option, tools ...tool.Tool) *executor.Executor {
	reg := registry.New()
	reg.MustRegister(tool.Func("search", "Search the knowledge base", search, tool.WithRisk(tool.RiskLow)))
	reg.MustRegister(tools...)
	return executor.MustNew(reg, opts...)
}

func exec(t testing.TB, ex *executor.Executor, name, args string) *tool.Result {
	t.Helper()
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: name, Args: json.RawMessage(args)})
	require.NotNil(t, res)
	if res.Error != nil {
		require.Error(t, err)
		var te *tool.Error
		require.True(t, errors.As(err, &te))
		assert.Same(t, res.Error, te, "the error is the result's error")
	} else {
		require.NoError(t, err)
	}
	return res
}

func TestExecuteSucceeds(t *testing.T) {
	ex := newExec(t, nil)
	res := exec(t, ex, "search", `{"query":"x","limit":3,"near":{"city":"Lisbon"}}`)
	assert.Equal(t, tool.StatusSucceeded, res.Status)
	assert.JSONEq(t, `{"query":"x","limit":3,"city":"Lisbon"}`, string(res.Output))
	assert.Equal(t, "c1", res.CallID)
	assert.Equal(t, "search", res.Tool)
	assert.Equal(t, 1, res.Attempts)
	assert.False(t, res.StartedAt.IsZero())
	assert.Positive(t, res.Timings.Total)
	assert.GreaterOrEqual(t, res.Timings.Total, res.Timings.Backend)
}

func TestNotFoundNamesClosest(t *testing.T) {
	ex := newExec(t, nil)
	res := exec(t, ex, "serch", `{}`)
	assert.Equal(t, tool.CodeNotFound, res.Error.Code)
	assert.Equal(t, `no tool named "serch": did you mean "search"?`, res.Error.Message)
	res = exec(t, ex, "kubectl_apply", `{}`)
	assert.Contains(t, res.Error.Message, "available tools are search")
	res = exec(t, ex, "", `{}`)
	assert.Contains(t, res.Error.Message, "names no tool")
}

func TestValidationNamesEveryField(t *testing.T) {
	ex := newExec(t, nil)
	res := exec(t, ex, "search", `{"query":"x","near":{},"limit":80,"kind":"videos"}`)
	assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code)
	assert.Equal(t, `kind: must be one of "code", "docs"; limit: must be <= 50, got 80; near.city: required`, res.Error.Message)
	var fe interface{ Error() string }
	require.True(t, errors.As(res.Error, &fe))

	// The order is stable across runs (validator cause order is not).
	for i := 0; i < 20; i++ {
		again := exec(t, ex, "search", `{"query":"x","near":{},"limit":80,"kind":"videos"}`)
		assert.Equal(t, res.Error.Message, again.Error.Message)
	}

	cases := map[string]string{
		`{"query":1}`:                 "query: must be string, got number",
		`{}`:                          "query: required",
		`{"query":"x","extra":true}`:  "extra: unknown field",
		`{"query":"x","limit":0}`:     "limit: must be >= 1, got 0",
		`{"query":"x","limit":"two"}`: "limit: must be integer, got string",
		`{"query":"x","near":{"city":"a","country":"PT","zip":1}}`: "near.zip: unknown field",
	}
	for args, want := range cases {
		res := exec(t, ex, "search", args)
		require.NotNil(t, res.Error, args)
		assert.Contains(t, res.Error.Message, want, args)
	}
}

func TestArgumentShapeRefusedBeforeDecoding(t *testing.T) {
	ex := newExec(t, []executor.Option{executor.WithMaxArgBytes(64)})
	cases := map[string]string{
		`{"query":"` + strings.Repeat("a", 100) + `"}`: "over the 64-byte limit",
		`{"query":`:          "not valid JSON",
		`[1,2]`:              "arguments are a JSON array: send a JSON object",
		`"text"`:             "arguments are a JSON string",
		`null`:               "arguments are a JSON null",
		`{"query":"x"} {}`:   "more than one JSON value",
		`{"query":"x"} junk`: "more than one JSON value",
	}
	for args, want := range cases {
		res := exec(t, ex, "search", args)
		require.NotNil(t, res.Error, args)
		assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code, args)
		assert.Contains(t, res.Error.Message, want, args)
	}
	// Empty arguments mean an empty object.
	res := exec(t, newExec(t, nil, tool.Func("ping", "The ping test tool", func(context.Context, struct{}) (string, error) { return "pong", nil })), "ping", ``)
	assert.Equal(t, "pong", res.Text())
}

type SleepArgs struct {
	MS int `json:"ms"`
}

func sleeper(stopped *atomic.Int32) func(context.Context, SleepArgs) (string, error) {
	return func(ctx context.Context, in SleepArgs) (string, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			stopped.Add(1)
			return "", ctx.Err()
		}
	}
}

func TestTimeoutPrecedence(t *testing.T) {
	var stopped atomic.Int32
	withSpec := tool.Func("spec_timeout", "The spec_timeout test tool", sleeper(&stopped), tool.WithTimeout(20*time.Millisecond))
	noSpec := tool.Func("no_timeout", "The no_timeout test tool", sleeper(&stopped))
	ex := newExec(t, []executor.Option{executor.WithTimeout(30 * time.Millisecond)}, withSpec, noSpec)

	res := exec(t, ex, "spec_timeout", `{"ms":5000}`)
	assert.Equal(t, tool.StatusTimedOut, res.Status)
	assert.Equal(t, tool.CodeTimeout, res.Error.Code)
	assert.True(t, res.Error.Retryable)
	assert.Contains(t, res.Error.Message, "20ms deadline")

	res = exec(t, ex, "no_timeout", `{"ms":5000}`)
	assert.Contains(t, res.Error.Message, "30ms deadline", "executor default applies")

	res, _ = ex.Execute(context.Background(), tool.Call{Name: "spec_timeout", Args: json.RawMessage(`{"ms":5000}`), Timeout: 10 * time.Millisecond})
	assert.Contains(t, res.Error.Message, "10ms deadline", "per-call override wins")

	res, _ = ex.Execute(context.Background(), tool.Call{Name: "spec_timeout", Args: json.RawMessage(`{"ms":1}`), Timeout: time.Second})
	assert.True(t, res.OK(), "a call override can also raise the limit")

	// Without WithDetach a call ends only once its backend has returned.
	assert.Equal(t, int32(3), stopped.Load(), "every timed-out backend saw its context cancelled")
}

func TestTimeoutHonouredByFunctionThatIgnoresContext(t *testing.T) {
	release := make(chan struct{})
	stubborn := tool.Func("stubborn", "The stubborn test tool", func(ctx context.Context, _ struct{}) (string, error) {
		<-release // ignores ctx
		return "late", nil
	}, tool.WithTimeout(20*time.Millisecond))
	ex := newExec(t, []executor.Option{executor.WithDetach()}, stubborn)
	res := exec(t, ex, "stubborn", `{}`)
	close(release)
	assert.Equal(t, tool.StatusTimedOut, res.Status)
	assert.Contains(t, res.Error.Message, "is still running in the background", "it was not stopped: the message says so")
	assert.NotContains(t, res.Error.Message, "was stopped")
	assert.Equal(t, true, res.Metadata["backend_still_running"])
}

func TestInlineBackendEndsBeforeTheCall(t *testing.T) {
	var running atomic.Int32
	stubborn := tool.Func("stubborn", "The stubborn test tool", func(ctx context.Context, _ struct{}) (string, error) {
		running.Add(1)
		defer running.Add(-1)
		time.Sleep(60 * time.Millisecond) // ignores ctx
		return "late", nil
	}, tool.WithTimeout(10*time.Millisecond))
	ex := newExec(t, nil, stubborn)
	res := exec(t, ex, "stubborn", `{}`)
	// It ignored its context and finished late: the result is kept, and
	// marked (status, metadata, a message saying what happened).
	assert.Equal(t, tool.StatusTimedOut, res.Status)
	assert.Equal(t, true, res.Metadata["late"])
	require.NotNil(t, res.Error)
	assert.Contains(t, res.Error.Message, `tool "stubborn" ignored its 10ms deadline and returned after`)
	assert.Equal(t, "late", res.Content[0].Text, "the late result is kept")
	assert.Equal(t, int32(0), running.Load(), "by default the call ends only when its backend has stopped")
}

func TestCallerCancellation(t *testing.T) {
	var stopped atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	// The caller cancels once the backend runs, not after a time: a cancel
	// 10 ms in, before a loaded machine started the backend, left it
	// unstarted (2 of 30 -race runs).
	sleep := sleeper(&stopped)
	ex := newExec(t, nil, tool.Func("sleep", "The sleep test tool", func(ctx context.Context, in SleepArgs) (string, error) {
		if in.MS > 1 {
			go cancel()
		}
		return sleep(ctx, in)
	}))
	res, err := ex.Execute(ctx, tool.Call{Name: "sleep", Args: json.RawMessage(`{"ms":5000}`)})
	assert.ErrorIs(t, err, tool.ErrCancelled)
	assert.Equal(t, tool.StatusCancelled, res.Status)

	res, _ = ex.Execute(ctx, tool.Call{Name: "sleep", Args: json.RawMessage(`{"ms":1}`)})
	assert.Equal(t, tool.StatusCancelled, res.Status, "an already-cancelled context runs nothing")
	// Without WithDetach a call ends only once its backend has returned.
	assert.Equal(t, int32(1), stopped.Load(), "the backend saw the cancellation")
}

func TestPanicBecomesResult(t *testing.T) {
	ex := newExec(t, nil, tool.Func("boom", "The boom test tool", func(context.Context, struct{}) (string, error) {
		var m map[string]int
		//lint:ignore SA5000 the panic is what the test is about
		m["x"] = 1 // nil map write panics
		return "", nil
	}))
	res := exec(t, ex, "boom", `{}`)
	assert.Equal(t, tool.CodePanic, res.Error.Code)
	assert.Equal(t, tool.StatusFailed, res.Status)
	assert.Contains(t, res.Error.Message, "assignment to entry in nil map")
	assert.Contains(t, res.Metadata["stack"], "core_test.go")
}

func TestOutputValidated(t *testing.T) {
	liar := tool.New("liar", "The liar test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{Output: json.RawMessage(`{"count":"many"}`)}, nil
	}, tool.WithOutputSchema(json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`)))
	honest := tool.New("honest", "The honest test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{Output: json.RawMessage(`{"count":2}`)}, nil
	}, tool.WithOutputSchema(json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`)))
	ex := newExec(t, nil, liar, honest)
	res := exec(t, ex, "liar", `{}`)
	assert.Equal(t, tool.CodeInvalidOutput, res.Error.Code)
	assert.Contains(t, res.Error.Message, "count: must be integer, got string")
	assert.True(t, exec(t, ex, "honest", `{}`).OK())
}

// Every code in the closed set reaches the caller with its status and
// retryability, whether the pipeline or the backend produced it.
func TestEveryErrorCodeReachable(t *testing.T) {
	var code atomic.Value
	failing := tool.New("fail", "The fail test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		c := code.Load().(tool.Code)
		if c == tool.CodeInternal {
			return nil, errors.New("plain error without a code")
		}
		return nil, tool.NewError(c, "backend says "+string(c))
	})
	ex := newExec(t, nil, failing)
	for _, c := range tool.Codes {
		t.Run(string(c), func(t *testing.T) {
			code.Store(c)
			res := exec(t, ex, "fail", `{}`)
			require.NotNil(t, res.Error)
			assert.Equal(t, c, res.Error.Code)
			assert.Equal(t, c.Status(), res.Status)
			assert.Equal(t, c.Retryable(), res.Error.Retryable)
		})
	}
	// Codes the pipeline itself produces.
	assert.Equal(t, tool.CodeNotFound, exec(t, ex, "nope", `{}`).Error.Code)
	assert.Equal(t, tool.CodeInvalidArguments, exec(t, ex, "search", `[]`).Error.Code)
}

func TestBackendResultErrorKeepsContent(t *testing.T) {
	partial := tool.New("partial", "The partial test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{Content: []tool.Content{tool.TextContent("half done")}}, tool.NewError(tool.CodeNonZeroExit, "exit 2")
	})
	res := exec(t, newExec(t, nil, partial), "partial", `{}`)
	assert.Equal(t, tool.CodeNonZeroExit, res.Error.Code)
	assert.Equal(t, "half done", res.Text())
}

func TestExtensionShortCircuits(t *testing.T) {
	var ran atomic.Int32
	counted := tool.Func("counted", "The counted test tool", func(context.Context, struct{}) (string, error) { ran.Add(1); return "ran", nil })
	deny := extension.Hooks{ExtName: "deny", Before: func(_ context.Context, req *extension.Request) *tool.Result {
		return &tool.Result{Status: tool.StatusSucceeded, Content: []tool.Content{tool.TextContent("cached")}}
	}}
	ex := newExec(t, []executor.Option{executor.WithExtensions(deny)}, counted)
	res := exec(t, ex, "counted", `{}`)
	assert.Equal(t, "cached", res.Text())
	assert.Equal(t, int32(0), ran.Load())
	assert.Equal(t, "c1", res.CallID, "the executor fills identity on short-circuited results")
}

// Extensions learn when the executor received the call, so that they can
// time it without reading the clock again.
func TestRequestCarriesReceivedTime(t *testing.T) {
	var received time.Time
	spy := extension.Hooks{ExtName: "spy", Before: func(_ context.Context, req *extension.Request) *tool.Result {
		received = req.Received
		return nil
	}}
	ex := newExec(t, []executor.Option{executor.WithExtensions(spy)})
	res := exec(t, ex, "search", `{"query":"x"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.False(t, received.IsZero())
	assert.True(t, received.Equal(res.StartedAt), "Received %v is the result's StartedAt %v", received, res.StartedAt)
}

// A tool whose schema accepts any object skips decoding its arguments,
// but still gets exactly one JSON object.
func TestAnyObjectSchemaStillRefusesNonObjects(t *testing.T) {
	var got []string
	anyArgs := tool.New("any", "Takes anything", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		got = append(got, string(c.Args))
		return &tool.Result{}, nil
	})
	ex := newExec(t, nil, anyArgs)
	for _, ok := range []string{`{}`, `{"a":[1,{"b":null}]}`, ``} {
		res := exec(t, ex, "any", ok)
		assert.True(t, res.OK(), "%s: %v", ok, res.Error)
	}
	assert.Equal(t, []string{`{}`, `{"a":[1,{"b":null}]}`, `{}`}, got, "the arguments reach the tool unchanged")
	for bad, msg := range map[string]string{
		`[]`:       "JSON array",
		`null`:     "JSON null",
		`{} {}`:    "more than one JSON value",
		`{"a":}`:   "not valid JSON",
		`{"a":1}x`: "",
	} {
		res := exec(t, ex, "any", bad)
		require.NotNil(t, res.Error, bad)
		assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code, bad)
		assert.Contains(t, res.Error.Message, msg, bad)
	}
}

func TestRewrittenArgumentsAreValidatedAgain(t *testing.T) {
	rewrite := func(args string) extension.Extension {
		return extension.Func("rewrite", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				req.Call.Args = json.RawMessage(args)
				return next(ctx, req)
			}
		})
	}
	ex := newExec(t, []executor.Option{executor.WithExtensions(rewrite(`{"query":"rewritten","limit":500}`))})
	res := exec(t, ex, "search", `{"query":"x"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code)
	assert.Contains(t, res.Error.Message, "rewritten by an extension")
	assert.Contains(t, res.Error.Message, "limit: must be <= 50, got 500")

	ex = newExec(t, []executor.Option{executor.WithExtensions(rewrite(`{"query":"rewritten","limit":5,"kind":null}`))})
	res = exec(t, ex, "search", `{"query":"x"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.JSONEq(t, `{"query":"rewritten","limit":5}`, string(res.Output))
}

func TestPrincipalTakenFromContext(t *testing.T) {
	var got tool.Principal
	who := tool.New("whoami", "The whoami test tool", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		got = c.Principal
		return &tool.Result{}, nil
	})
	ex := newExec(t, nil, who)
	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "alice", Roles: []string{"dev"}})
	_, err := ex.Execute(ctx, tool.Call{Name: "whoami"})
	require.NoError(t, err)
	assert.Equal(t, "alice", got.ID)
	_, err = ex.Execute(ctx, tool.Call{Name: "whoami", Principal: tool.Principal{ID: "bob"}})
	require.NoError(t, err)
	assert.Equal(t, "bob", got.ID, "an explicit principal on the call wins")
}

func TestRetryAfterPreserved(t *testing.T) {
	limited := tool.New("limited", "The limited test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		return nil, tool.NewError(tool.CodeRateLimited, "slow down").WithRetryAfter(3 * time.Second)
	})
	res := exec(t, newExec(t, nil, limited), "limited", `{}`)
	assert.Equal(t, 3*time.Second, res.Error.RetryAfter)
	assert.True(t, res.Error.Retryable)
	assert.Equal(t, tool.StatusDenied, res.Status)
}

func TestCallerEmitterStillReceivesWhenSubscribed(t *testing.T) {
	chatty := tool.Func("chatty", "The chatty test tool", func(ctx context.Context, _ struct{}) (string, error) {
		tool.EmitOutput(ctx, "stdout", []byte("hello"))
		return "done", nil
	})
	ex := newExec(t, nil, chatty)
	events, cancel := ex.Subscribe(executor.EventFilter{})
	defer cancel()
	var outer []tool.Event
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { outer = append(outer, ev) })
	_, err := ex.Execute(ctx, tool.Call{ID: "e1", Name: "chatty"})
	require.NoError(t, err)
	require.Len(t, outer, 1, "the caller's emitter is not hidden by the executor's")
	assert.Equal(t, "hello", string(outer[0].Data))
	var sawOutput bool
	for len(events) > 0 {
		ev := <-events
		if ev.Kind == tool.EventOutput {
			sawOutput = true
			assert.Equal(t, "e1", ev.CallID)
		}
	}
	assert.True(t, sawOutput, "the subscriber also gets the output")
}

func TestArrayBoundsMessage(t *testing.T) {
	type Args struct {
		Targets []string `json:"targets" jsonschema:"minItems=1"`
	}
	ex := newExec(t, nil, tool.Func("deploy", "The deploy test tool", func(context.Context, Args) (string, error) { return "", nil }))
	res := exec(t, ex, "deploy", `{"targets":[]}`)
	assert.Equal(t, "targets: minimum 1 items required, got 0 items", res.Error.Message)
}

type refusalRecorder struct {
	extension.Extension
	got []string
}

func (r *refusalRecorder) Refused(_ context.Context, call *tool.Call, spec *tool.Spec, res *tool.Result) {
	r.got = append(r.got, fmt.Sprintf("%s:%s:%v", call.Name, res.Error.Code, spec != nil))
}

func TestObserversSeeRefusedCalls(t *testing.T) {
	rec := &refusalRecorder{Extension: extension.Hooks{ExtName: "rec"}}
	ex := newExec(t, []executor.Option{executor.WithExtensions(rec)})
	exec(t, ex, "nope", `{}`)
	exec(t, ex, "search", `{"limit":"x"}`)
	exec(t, ex, "search", `{"query":"ok"}`)
	assert.Equal(t, []string{"nope:not_found:false", "search:invalid_arguments:true"}, rec.got, "valid calls go through the chain, not Refused")
}
