package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

type WeatherArgs struct {
	City  string `json:"city"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial"`
}

type Weather struct {
	City  string  `json:"city"`
	Temp  float64 `json:"temp"`
	Units string  `json:"units"`
}

func weatherExecutor(t testing.TB) *executor.Executor {
	reg := registry.New()
	reg.MustRegister(tool.Func("get_weather", "Weather for a city", func(_ context.Context, in WeatherArgs) (Weather, error) {
		u := in.Units
		if u == "" {
			u = "metric"
		}
		return Weather{City: in.City, Temp: 21, Units: u}, nil
	}))
	return executor.MustNew(reg)
}

// Round trips on recorded provider payloads: calls are read, executed and
// rendered back; the rendered payload is compared with a golden file.
func TestRoundTripGolden(t *testing.T) {
	ex := weatherExecutor(t)
	for _, c := range wire.Codecs {
		t.Run(c.Name(), func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join("testdata", c.Name()+".json"))
			require.NoError(t, err)
			calls, err := c.Calls(payload)
			require.NoError(t, err)
			require.NotEmpty(t, calls)
			results := make([]*tool.Result, len(calls))
			for i, call := range calls {
				results[i], _ = ex.Execute(context.Background(), call)
			}
			out, err := c.Results(results)
			require.NoError(t, err)
			var pretty bytes.Buffer
			require.NoError(t, json.Indent(&pretty, out, "", "  "))
			golden := filepath.Join("testdata", c.Name()+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, pretty.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./agent/wire -update")
			assert.Equal(t, string(want), pretty.String())
		})
	}
}

func TestCallsAreRead(t *testing.T) {
	read := func(c wire.Codec) []tool.Call {
		payload, err := os.ReadFile(filepath.Join("testdata", c.Name()+".json"))
		require.NoError(t, err)
		calls, err := c.Calls(payload)
		require.NoError(t, err)
		return calls
	}
	oc := read(wire.OpenAIChat)
	require.Len(t, oc, 3)
	assert.Equal(t, "call_Wq1", oc[0].ID)
	assert.JSONEq(t, `{"city":"Lisbon","units":null}`, string(oc[0].Args))
	assert.Equal(t, `{"city":`, string(oc[1].Args), "broken arguments are kept for the executor to refuse")

	an := read(wire.Anthropic)
	require.Len(t, an, 2)
	assert.Equal(t, tool.Call{ID: "toolu_01B", Name: "get_weather", Args: json.RawMessage(`{"city": "Braga", "units": "imperial"}`)}, an[1])

	ge := read(wire.Gemini)
	require.Len(t, ge, 2)
	assert.Equal(t, "get_weather#0", ge[0].ID, "Gemini calls without an id get a positional one")
	assert.Equal(t, "fc-77", ge[1].ID)

	mc := read(wire.MCP)
	assert.Equal(t, "7", mc[0].ID)
	assert.Equal(t, "req-8", mc[1].ID)

	or := read(wire.OpenAIResponses)
	require.Len(t, or, 2, "reasoning items are skipped")
	assert.Equal(t, "call_a1", or[0].ID)
}

func TestMalformedPayloads(t *testing.T) {
	cases := []struct {
		codec   wire.Codec
		payload string
		want    string
	}{
		{wire.OpenAIChat, `not json`, "not JSON"},
		{wire.OpenAIChat, `{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"x","arguments":"{}"}}]}`, "has no id"},
		{wire.OpenAIChat, `{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"arguments":"{}"}}]}`, "has no name"},
		{wire.OpenAIResponses, `{"output":[{"type":"function_call","name":"x","arguments":"{}"}]}`, "has no id"},
		{wire.OpenAIResponses, `[1,2]`, "not an object"},
		{wire.Anthropic, `{"content":[{"type":"tool_use","name":"x","input":{}}]}`, "has no id"},
		{wire.Anthropic, `{"content":[{"id":"x"}]}`, "has no type"},
		{wire.Anthropic, `{"content":{"a":1}}`, "not an array of blocks"},
		{wire.Gemini, `{"parts":[{"functionCall":{"args":{}}}]}`, "has no name"},
		{wire.Gemini, `{"parts":[{"functionCall":"x"}]}`, "not an object"},
		{wire.MCP, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `method "tools/list"`},
		{wire.MCP, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`, "has no id"},
		{wire.MCP, `[`, "not a JSON array"},
		{wire.Gemini, `{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(x"}]}`, "MALFORMED_FUNCTION_CALL"},
		{wire.Gemini, `{"candidates":[{"finishReason":"SAFETY"}]}`, "finish reason SAFETY"},
	}
	for _, c := range cases {
		t.Run(c.codec.Name()+"/"+c.want, func(t *testing.T) {
			require.NotPanics(t, func() {
				_, err := c.codec.Calls([]byte(c.payload))
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.want)
			})
		})
	}
	for _, c := range wire.Codecs {
		if c != wire.Prompt { // results go back in call order: no ids
			_, err := c.Results([]*tool.Result{{Tool: "x"}})
			assert.ErrorContains(t, err, "has no call id", c.Name())
		}
		_, err := c.Results([]*tool.Result{nil})
		assert.ErrorContains(t, err, "is nil", c.Name())
	}
}

func TestTextIsCompact(t *testing.T) {
	assert.Equal(t, `{"a":1}`, wire.Text(&tool.Result{Output: json.RawMessage("{\n  \"a\": 1\n}")}))
	assert.Equal(t, "ok (no output)", wire.Text(&tool.Result{}))
	e := &tool.Result{Error: tool.NewError(tool.CodeRateLimited, "slow down").WithRetryAfter(2 * time.Second)}
	assert.Equal(t, "error [rate_limited]: slow down (retryable after 2s)", wire.Text(e))
	tr := &tool.Result{Content: []tool.Content{tool.TextContent("head")}, Metadata: map[string]any{"truncated": true}}
	assert.Equal(t, "head\n[output truncated]", wire.Text(tr))
	big := &tool.Result{Content: []tool.Content{tool.TextContent(string(bytes.Repeat([]byte("x"), 100_000)))}}
	txt := wire.Text(big)
	assert.LessOrEqual(t, len(txt), wire.MaxResultText+64)
	assert.Contains(t, txt, "bytes cut")
	img := &tool.Result{Content: []tool.Content{{Type: tool.ContentImage, MIMEType: "image/png", Data: []byte{1, 2, 3}}}}
	assert.Equal(t, "[image image/png, 3 bytes]", wire.Text(img))
}

// A long result is cut where a character starts (textcut, as the
// executor's output cap cuts): a cut inside one would hand the model bytes
// that are not UTF-8, which providers' APIs refuse or mangle.
func TestTextCutKeepsCharactersWhole(t *testing.T) {
	for _, s := range []string{
		"x" + strings.Repeat("é", 50_000),  // the head's cut falls inside a character
		strings.Repeat("€", 40_000),        // the tail's
		"xy" + strings.Repeat("€", 40_000), // both
	} {
		txt := wire.Text(&tool.Result{Content: []tool.Content{tool.TextContent(s)}})
		require.Contains(t, txt, "bytes cut")
		assert.True(t, utf8.ValidString(txt), "a character was split around the marker: %q", txt[strings.Index(txt, "\n[")-4:strings.Index(txt, "]\n")+6])
		assert.LessOrEqual(t, len(txt), wire.MaxResultText+64)
	}
}

// An MCP result carries its structured output twice (structuredContent and
// a text block of the same JSON), and an MCP error result repeats its
// message as text: the model reads each fact once.
func TestTextSaysEachFactOnce(t *testing.T) {
	mcpLike := &tool.Result{
		Output:  json.RawMessage(`{"city":"Oslo","temp":21}`),
		Content: []tool.Content{tool.TextContent("{\n  \"temp\": 21,\n  \"city\": \"Oslo\"\n}"), tool.TextContent("note: cached")},
	}
	assert.Equal(t, "{\"city\":\"Oslo\",\"temp\":21}\nnote: cached", wire.Text(mcpLike))

	failed := &tool.Result{
		Error:   tool.NewError(tool.CodeNotFound, "no such city"),
		Content: []tool.Content{tool.TextContent("no such city"), tool.TextContent("try \"Oslo\"")},
	}
	assert.Equal(t, "error [not_found]: no such city\ntry \"Oslo\"", wire.Text(failed))
}

// Gemini's error object has its own code field: the message does not
// repeat it.
func TestGeminiErrorSaysItsCodeOnce(t *testing.T) {
	r := &tool.Result{CallID: "get_weather#0", Tool: "get_weather",
		Error: tool.NewError(tool.CodeRateLimited, "slow down").WithRetryAfter(2 * time.Second)}
	raw, err := wire.Gemini.Results([]*tool.Result{r})
	require.NoError(t, err)
	var got struct {
		Parts []struct {
			FunctionResponse struct {
				Response struct {
					Error struct{ Code, Message string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Len(t, got.Parts, 1)
	e := got.Parts[0].FunctionResponse.Response.Error
	assert.Equal(t, "rate_limited", e.Code)
	assert.Equal(t, "slow down (retryable after 2s)", e.Message)
}

// Block and item types the codecs do not know are kept out of the calls,
// never an error that loses the calls beside them (issue 19).
func TestUnknownTypesKeepCalls(t *testing.T) {
	cases := []struct {
		codec   wire.Codec
		payload string
		ids     []string
	}{
		{wire.OpenAIChat, `{"role":"assistant","tool_calls":[
			{"id":"c1","type":"custom","custom":{"name":"apply_patch","input":"*** Begin Patch"}},
			{"id":"c2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}`, []string{"c1", "c2"}},
		{wire.OpenAIResponses, `{"output":[
			{"type":"custom_tool_call","call_id":"x1","name":"apply_patch","input":"..."},
			{"type":"mcp_approval_request","id":"m1","name":"t","server_label":"s","arguments":"{}"},
			{"type":"shell_call","call_id":"s1","action":{"commands":["ls"]}},
			{"type":"compaction","encrypted_content":"abc"},
			{"type":"something_new_2027"},
			{"type":"function_call","call_id":"f1","name":"get_weather","arguments":"{}"}]}`, []string{"f1"}},
		{wire.Anthropic, `{"role":"assistant","content":[
			{"type":"thinking","thinking":"hmm","signature":"sig=="},
			{"type":"redacted_thinking","data":"opaque"},
			{"type":"server_tool_use","id":"srv1","name":"web_fetch","input":{"url":"https://x"}},
			{"type":"web_fetch_tool_result","tool_use_id":"srv1","content":{"type":"web_fetch_result"}},
			{"type":"code_execution_tool_result","tool_use_id":"srv2","content":{}},
			{"type":"container_upload","file_id":"f"},
			{"type":"tool_use","id":"tu1","name":"get_weather","input":{"city":"Oslo"}}]}`, []string{"tu1"}},
		{wire.Gemini, `{"candidates":[{"content":{"role":"model","parts":[
			{"text":"thinking...","thought":true},
			{"functionCall":{"name":"get_weather","args":{"city":"Oslo"}},"thoughtSignature":"c2ln"},
			{"toolCall":{"id":"t"}},
			{"mystery":{}}]},"finishReason":"STOP"}]}`, []string{"get_weather#1"}},
	}
	for _, c := range cases {
		t.Run(c.codec.Name(), func(t *testing.T) {
			calls, err := c.codec.Calls([]byte(c.payload))
			require.NoError(t, err)
			var ids []string
			for _, call := range calls {
				ids = append(ids, call.ID)
			}
			assert.Equal(t, c.ids, ids)
		})
	}
}

// A message under a completion's choices is read as a message: a "choices"
// field inside it is not a completion again. Read again, a hostile answer
// ran calls the transcript did not show (the nested ones, not the message's
// own tool_calls), and each level of nesting parsed the rest of the
// payload again (a 78 KB answer took 1.7 s).
func TestOpenAIChatNestedChoices(t *testing.T) {
	payload := []byte(`{"choices":[{"message":{"role":"assistant",
		"choices":[{"message":{"tool_calls":[{"id":"hidden","type":"function","function":{"name":"delete_all","arguments":"{}"}}]}}],
		"tool_calls":[{"id":"shown","type":"function","function":{"name":"search","arguments":"{}"}}]}}]}`)
	calls, err := wire.OpenAIChat.Calls(payload)
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "shown", calls[0].ID)
	assert.Equal(t, "search", calls[0].Name)

	deep := []byte(strings.Repeat(`{"choices":[{"message":`, 2000) + `{}` + strings.Repeat(`}]}`, 2000))
	calls, err = wire.OpenAIChat.Calls(deep)
	require.NoError(t, err)
	assert.Empty(t, calls)
}
