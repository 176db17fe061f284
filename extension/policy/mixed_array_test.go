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

// mixedArgs declares a path argument whose list the schema lets hold any
// value: the tool reads the strings in it.
type mixedArgs struct {
	Paths []any `json:"paths" toolbelt:"path"`
}

// Every string in a path argument's list is a path, whatever else the list
// holds. Before, one number in the list ("/etc/passwd", 1) made the whole
// list "not a list of strings", and no path in it was judged.
func TestEveryStringInAPathListIsJudged(t *testing.T) {
	var got [][]any
	reg := registry.New()
	reg.MustRegister(tool.Func("read_many", "Read files", func(_ context.Context, a mixedArgs) (string, error) {
		got = append(got, a.Paths)
		return "ok", nil
	}))
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/**"], allowed_paths: ["/w/**"]}`))
	require.NoError(t, err)
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, args := range []string{
		`{"paths":["/etc/passwd"]}`,
		`{"paths":["/etc/passwd", 1]}`,
		`{"paths":[1, "/etc/passwd"]}`,
		`{"paths":["/w/a", null, "/etc/shadow"]}`,
		`{"paths":[true, "/home/u/x"]}`,
	} {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "read_many", Args: []byte(args)})
		assert.Error(t, err, args)
		if assert.NotNil(t, res.Error, args) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, args)
		}
	}
	assert.Empty(t, got, "a forbidden path in a mixed list reached the tool")
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "read_many", Args: []byte(`{"paths":["/w/a", 1]}`)})
	assert.NoError(t, err)
	assert.Nil(t, res.Error, "an allowed path beside a number still runs")
}
