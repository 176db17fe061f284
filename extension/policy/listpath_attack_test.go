package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A Go tool whose arguments hold a list (or a map) of structs with a field
// tagged `toolbelt:"path"` had those paths unjudged: the tag was marked in
// the schema only through object properties, so HOME/.ssh/id in
// files[1].name got past forbidden_paths **/.ssh/** and the tool read it.
func TestAttackPathTaggedInAListOfStructs(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	key := filepath.Join(home, ".ssh", "id")
	require.NoError(t, os.WriteFile(key, []byte(sshSecret), 0o600))
	plain := filepath.Join(home, "a")
	require.NoError(t, os.WriteFile(plain, []byte("a"), 0o644))

	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**"]}`))
	require.NoError(t, err)
	type file struct {
		Name string `json:"name" toolbelt:"path"`
	}
	type in struct {
		Files []file          `json:"files,omitempty"`
		ByTag map[string]file `json:"by_tag,omitempty"`
	}
	cat := tool.Func("cat_files", "Print files", func(_ context.Context, a in) (string, error) {
		var out string
		for _, f := range append(a.Files, func() (l []file) {
			for _, f := range a.ByTag {
				l = append(l, f)
			}
			return l
		}()...) {
			b, err := os.ReadFile(f.Name)
			if err != nil {
				return "", err
			}
			out += string(b)
		}
		return out, nil
	})
	reg := registry.New()
	require.NoError(t, reg.Register(cat))
	ex := executor.MustNew(reg, executor.WithExtensions(p))

	for _, args := range []string{
		`{"files": [{"name": "` + plain + `"}, {"name": "` + key + `"}]}`,
		`{"by_tag": {"x": {"name": "` + key + `"}}}`,
	} {
		res := callRaw(t, ex, "cat_files", args)
		assert.NotContains(t, resultText(res), sshSecret, args)
		if assert.NotNil(t, res.Error, "%s ran: %s", args, resultText(res)) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s: %v", args, res.Error)
		}
	}
	res := callRaw(t, ex, "cat_files", `{"files": [{"name": "`+plain+`"}]}`)
	require.Nil(t, res.Error)
	assert.Equal(t, "a", res.Text())
}
