package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type s31ReviewPath struct {
	Path string `json:"path"`
}

// 773acbd passes a key an allOf member names exactly, though another
// member names it in another case: the validator checks each under its
// own rules. A Go tool whose In has a field for only one of the two
// reads both into it (encoding/json takes "Path" for the field "path"
// when no field is named "Path"): allOf [{path: ^/ok}, {Path: string}]
// passed {"Path":"/etc/passwd"} and the tool ran with path /etc/passwd
// (before 773acbd refused as a case twin). One properties naming both
// passed it before too.
func TestAttackS31ReviewTwinDeclaredForAFieldOfAnotherCase(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"object","allOf":[{"properties":{"path":{"type":"string","pattern":"^/ok"}}},{"properties":{"Path":{"type":"string"}}}]}`:                                                     "field path",
		`{"type":"object","properties":{"path":{"type":"string","pattern":"^/ok"},"Path":{"type":"string"}}}`:                                                                                  "field path",
		`{"type":"object","$ref":"#/$defs/loose","properties":{"path":{"type":"string","pattern":"^/ok"}},"$defs":{"loose":{"properties":{"PATH":{"type":"string"}}}}}`:                        "field path",
		`{"type":"object","allOf":[{"$ref":"#loose"}],"properties":{"path":{"type":"string","pattern":"^/ok"}},"$defs":{"loose":{"$anchor":"loose","properties":{"Path":{"type":"string"}}}}}`: "#loose",
	} {
		var got []string
		f, err := tool.NewFunc("read", "Reads a file under /ok", func(_ context.Context, in s31ReviewPath) (string, error) {
			got = append(got, in.Path)
			return "ok", nil
		}, tool.WithInputSchema(json.RawMessage(raw)))
		if err == nil {
			reg := registry.New()
			require.NoError(t, reg.Register(f))
			e, ok := reg.Lookup("read")
			require.True(t, ok)
			for _, a := range []string{`{"Path":"/etc/passwd"}`, `{"PATH":"/etc/passwd"}`, `{"path":"/ok/a","Path":"/etc/passwd"}`} {
				if checked, err := e.CheckArgs(json.RawMessage(a)); err == nil {
					_, _ = f.Run(context.Background(), tool.Call{Name: "read", Args: checked})
				}
			}
		}
		if assert.Error(t, err, "%s: built, and the tool ran with %q", raw, got) {
			assert.ErrorContains(t, err, want, raw)
		}
	}

	// Still built: a Go type with a field for each spelling, and a schema
	// that names the field in one case only (the other is refused at
	// call time as a twin).
	_, err := tool.NewFunc("read", "Reads", func(_ context.Context, in struct {
		Lower string `json:"path"`
		Upper string `json:"Path"`
	}) (string, error) {
		return "ok", nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","allOf":[{"properties":{"path":{"pattern":"^/ok"}}},{"properties":{"Path":{"type":"string"}}}]}`)))
	assert.NoError(t, err)
	_, err = tool.NewFunc("read", "Reads", func(_ context.Context, in s31ReviewPath) (string, error) {
		return "ok", nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"Path":{"type":"string","pattern":"^/ok"}}}`)))
	assert.NoError(t, err)
}

// The case-twin check reads properties only: a field declared by a
// patternProperties that matches its name in one case ("^path$") has no
// rules for a key in another ("Path" matches no pattern, and passes as an
// additional property), and encoding/json reads that key into the field:
// {"Path":"/etc/passwd"} passed and the tool ran with it.
func TestAttackS31ReviewFieldDeclaredByACaseSensitivePattern(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","patternProperties":{"^path$":{"type":"string","pattern":"^/ok"}}}`,
		`{"type":"object","allOf":[{"patternProperties":{"^pa":{"type":"string","pattern":"^/ok"}}}]}`,
	} {
		var got []string
		f, err := tool.NewFunc("read", "Reads a file under /ok", func(_ context.Context, in s31ReviewPath) (string, error) {
			got = append(got, in.Path)
			return "ok", nil
		}, tool.WithInputSchema(json.RawMessage(raw)))
		if err == nil {
			reg := registry.New()
			require.NoError(t, reg.Register(f))
			e, ok := reg.Lookup("read")
			require.True(t, ok)
			for _, a := range []string{`{"Path":"/etc/passwd"}`, `{"PATH":"/etc/passwd"}`} {
				if checked, err := e.CheckArgs(json.RawMessage(a)); err == nil {
					_, _ = f.Run(context.Background(), tool.Call{Name: "read", Args: checked})
				}
			}
		}
		if assert.Error(t, err, "%s: built, and the tool ran with %q", raw, got) {
			assert.ErrorContains(t, err, "field path", raw)
		}
	}
	// Still built: a pattern that matches the name in any case, one that
	// matches no field, and any pattern where other keys are refused.
	for _, raw := range []string{
		`{"type":"object","patternProperties":{"(?i)^path$":{"type":"string","pattern":"^/ok"}}}`,
		`{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`,
		`{"type":"object","patternProperties":{"^path$":{"type":"string","pattern":"^/ok"}},"additionalProperties":false}`,
	} {
		_, err := tool.NewFunc("read", "Reads", func(_ context.Context, in s31ReviewPath) (string, error) {
			return "ok", nil
		}, tool.WithInputSchema(json.RawMessage(raw)))
		assert.NoError(t, err, raw)
	}
}
