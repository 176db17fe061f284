package tool

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Func's godoc states the default of everything an Option changes, and a
// Func built without options has exactly those defaults. An Option added
// to tool.go fails here until its default is stated (add it to the table
// and to the godoc).
func TestFuncGodocStatesEveryDefault(t *testing.T) {
	// Option → the words Func's godoc uses for its default.
	stated := map[string]string{
		"WithRisk":         "the risk is RiskUnset, which approval and authorisation judge as RiskMedium",
		"WithCategory":     "no category",
		"WithTags":         "tags",
		"WithVersion":      "version",
		"WithModes":        "modes (every mode allowed)",
		"WithTimeout":      "timeout (the executor's default applies)",
		"WithRateLimit":    "rate limit",
		"WithResources":    "resources (batch calls do not serialise on anything)",
		"WithSecrets":      `secret fields beyond those tagged toolbelt:"secret"`,
		"WithApproval":     "RequiresApproval is off",
		"WithAnnotations":  "no MCP hints are set",
		"ReadOnly":         "ReadOnly, Idempotent and the like are off",
		"WithInputSchema":  "The input schema is reflected from In",
		"WithOutputSchema": "the output schema from Out (when Out is a struct)",
	}

	fset := token.NewFileSet()
	options, err := parser.ParseFile(fset, "tool.go", nil, 0)
	require.NoError(t, err)
	var found []string
	for _, d := range options.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !fd.Name.IsExported() || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
			continue
		}
		if id, ok := fd.Type.Results.List[0].Type.(*ast.Ident); ok && id.Name == "Option" {
			found = append(found, fd.Name.Name)
		}
	}
	require.NotEmpty(t, found)

	fn, err := parser.ParseFile(fset, "func.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var godoc string
	for _, d := range fn.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "Func" && fd.Recv == nil {
			godoc = strings.Join(strings.Fields(fd.Doc.Text()), " ")
		}
	}
	require.NotEmpty(t, godoc, "Func has no godoc")
	for _, name := range found {
		words, ok := stated[name]
		if !assert.True(t, ok, "tool.%s is an Option whose default Func's godoc must state: add it to this table and to the godoc", name) {
			continue
		}
		assert.Contains(t, godoc, words, "Func's godoc states the default of %s", name)
	}

	// The defaults the godoc states are the ones a Func has.
	ft, err := NewFunc("lookup", "Look up a row", func(context.Context, struct {
		ID string `json:"id"`
	}) (string, error) {
		return "", nil
	})
	require.NoError(t, err)
	s := ft.Spec()
	assert.Equal(t, RiskUnset, s.Risk)
	assert.Equal(t, RiskMedium, s.Risk.Effective())
	assert.Equal(t, Annotations{}, s.Annotations)
	assert.Empty(t, s.Category)
	assert.Empty(t, s.Tags)
	assert.Empty(t, s.Version)
	assert.Empty(t, s.AllowedModes)
	assert.True(t, s.AllowsMode(ModeLockdown), "every mode allowed")
	assert.Zero(t, s.Timeout)
	assert.Zero(t, s.RateLimitPerHour)
	assert.Empty(t, s.Secrets)
	assert.False(t, s.RequiresApproval)
	assert.Nil(t, ft.Resources([]byte(`{"id":"1"}`)))
	assert.NotEmpty(t, s.InputSchema)
	assert.Empty(t, s.OutputSchema, "a string Out has no output schema")
}
