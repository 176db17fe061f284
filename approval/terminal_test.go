package approval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

func termReq() Request {
	return Request{
		Call: tool.Call{ID: "call-7", Name: "shell", Args: json.RawMessage(`{"command":"rm -rf build","timeout":5}`), Session: "s1"},
		Spec: tool.Spec{Name: "shell", Description: "Run a shell command", Risk: tool.RiskHigh,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","minLength":1},"timeout":{"type":"integer","maximum":60}},"required":["command"]}`)},
		Principal: tool.Principal{ID: "alice"},
		Level:     classify.Dangerous,
		Reasons:   []string{"recursive delete", "second reason"},
		Subject:   "rm -rf build",
	}
}

func TestTerminalFlows(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		want   Decision
		outHas []string
		outNot []string
	}{
		{"approve", "a\n", Approved("bob"), []string{"Approval required: shell (call call-7)", "Danger:  dangerous", "recursive delete", "rm -rf build", "[A]pprove"}, []string{"second reason"}},
		{"approve word, upper case", "  APPROVE \n", Approved("bob"), nil, nil},
		{"session args", "s\n", Approved("bob").WithScope(ScopeSessionArgs), nil, nil},
		{"session tool", "t\n", Approved("bob").WithScope(ScopeSessionTool), nil, nil},
		{"deny with reason", "d\nuse a dry run first\n", Denied("bob", "use a dry run first"), []string{"Reason for the model"}, nil},
		{"deny without reason", "d\n\n", Denied("bob", "the user denied this call"), nil, nil},
		{"deny then EOF", "d\n", Denied("bob", "the user denied this call"), nil, nil},
		{"view then approve", "v\na\n", Approved("bob"), []string{"Description: Run a shell command", "second reason", `"minLength": 1`, `session="s1"`}, nil},
		{"unknown then approve", "x\na\n", Approved("bob"), []string{"Please answer A, S, T, D, M or V."}, nil},
		{"EOF denies", "", Denied("bob", "no answer: the approval input was closed"), nil, nil},
		{"modify: invalid JSON, then not an object, then schema-invalid, then valid", "m\n{\"command\": \n[1]\n{\"command\":\"ls\",\"timeout\":600}\n{\"timeout\":5, \"command\":\"rm -rf build/tmp\"}\n",
			Modified("bob", json.RawMessage(`{"command":"rm -rf build/tmp","timeout":5}`)),
			[]string{"Current arguments:", `"command": "rm -rf build"`, "Not accepted: arguments are not valid JSON", "Not accepted: arguments are a JSON array", "Not accepted: ", "timeout", "Will run with:"}, nil},
		{"modify: back to menu, then deny", "m\n\nd\nno\n", Denied("bob", "no"), nil, nil},
		{"modify: EOF denies", "m\n{bad\n", Denied("bob", "no answer: the approval input was closed"), []string{"Not accepted"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			term := NewTerminal(strings.NewReader(tc.input), &out, TerminalUser("bob"))
			d, err := term.Approve(context.Background(), termReq())
			require.NoError(t, err)
			if tc.want.Kind == Modify {
				assert.Equal(t, Modify, d.Kind)
				assert.JSONEq(t, string(tc.want.Args), string(d.Args))
				assert.Equal(t, "bob", d.DecidedBy)
			} else {
				assert.Equal(t, tc.want, d)
			}
			for _, s := range tc.outHas {
				assert.Contains(t, out.String(), s)
			}
			for _, s := range tc.outNot {
				assert.NotContains(t, out.String(), s)
			}
		})
	}
}

// A call whose decision is not remembered beyond it (Request.OnceOnly: an
// always-ask tool, no session) is offered no session-wide choice: S or T
// would approve this call alone while saying more, so they are refused and
// the person asked again.
func TestTerminalOnceOnlyOffersNoSessionChoice(t *testing.T) {
	req := termReq()
	req.OnceOnly = true
	var out strings.Builder
	term := NewTerminal(strings.NewReader("t\ns\nx\na\n"), &out, TerminalUser("bob"))
	d, err := term.Approve(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, Approved("bob"), d, "approved for this call only")
	assert.NotContains(t, out.String(), "[S]ession")
	assert.NotContains(t, out.String(), "[T]ool")
	assert.Equal(t, 2, strings.Count(out.String(), "asked about every time"), "both session answers refused")
	assert.Contains(t, out.String(), "Please answer A, D, M or V.")
}

func TestTerminalSchemaErrorNamesField(t *testing.T) {
	var out strings.Builder
	term := NewTerminal(strings.NewReader("m\n{\"command\":\"\"}\n{\"command\":\"ls\"}\n"), &out)
	d, err := term.Approve(context.Background(), termReq())
	require.NoError(t, err)
	assert.Equal(t, Modify, d.Kind)
	assert.Equal(t, "terminal", d.DecidedBy)
	assert.Regexp(t, `Not accepted: .*command`, out.String())
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("tty gone") }

func TestTerminalErrors(t *testing.T) {
	var out strings.Builder
	_, err := NewTerminal(errReader{}, &out).Approve(context.Background(), termReq())
	assert.ErrorContains(t, err, "tty gone")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = NewTerminal(strings.NewReader("a\n"), &out).Approve(ctx, termReq())
	assert.ErrorIs(t, err, context.Canceled, "a done context is not an approval")

	long := strings.Repeat("x", MaxTerminalLine+10) + "\n"
	_, err = NewTerminal(strings.NewReader(long), &out).Approve(context.Background(), termReq())
	assert.Error(t, err, "an over-long line is an error, not an approval")
}
