package policy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type declaredCopyArgs struct {
	Src  string `json:"src" toolbelt:"path"`
	Dst  string `json:"dst" toolbelt:"path"`
	Note string `json:"note,omitempty"`
}

// A tool rule's path_fields adds to the path arguments the tool's schema
// declares; it cannot take one away. Before, path_fields: [dst] on a tool
// that declares src and dst left src unjudged, and copy_to {"src":
// "/etc/shadow"} ran past the global forbidden_paths.
func TestPathFieldsDoNotUndeclareAPath(t *testing.T) {
	runs := 0
	reg := registry.New()
	reg.MustRegister(tool.Func("copy_to", "Copy a file", func(context.Context, declaredCopyArgs) (string, error) { runs++; return "ok", nil }))
	p, err := policy.Parse([]byte("global: {forbidden_paths: [\"/etc/**\"]}\ntools:\n  copy_to: {path_fields: [dst, note], forbidden_paths: [\"/tmp/**\"]}\n"))
	require.NoError(t, err)
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, args := range []string{
		`{"src":"/etc/shadow","dst":"/w/x"}`,
		`{"src":"/w/a","dst":"/etc/x"}`,
		`{"src":"/w/a","dst":"/w/x","note":"/tmp/y"}`,
	} {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "copy_to", Args: []byte(args)})
		assert.Error(t, err, args)
		if assert.NotNil(t, res.Error, args) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, args)
		}
	}
	assert.Zero(t, runs, "a declared path argument escaped the rules")
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "copy_to", Args: []byte(`{"src":"/w/a","dst":"/w/x"}`)})
	assert.NoError(t, err)
	assert.Nil(t, res.Error)
}
