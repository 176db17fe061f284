package policy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An ordinary file name with brackets ("photos[1].jpg") is a glob too,
// whose only wildcard is a class of a few characters: the names it can
// match are looked up one by one, not by reading the directory, so a
// directory of more entries than the glob bound (16,384) does not refuse
// it. The names it stands for are still judged.
func TestGlobOfFewNamesInALargeDirectory(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	require.NoError(t, os.Mkdir(big, 0o755))
	for i := range 17000 {
		require.NoError(t, os.WriteFile(filepath.Join(big, fmt.Sprint("f", i)), nil, 0o644))
	}
	for _, f := range []string{"photos[1].jpg", "photos1.jpg", "key2"} {
		require.NoError(t, os.WriteFile(filepath.Join(big, f), nil, 0o644))
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["big/key2"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{"big/photos[1].jpg", "big/photos[0-9].jpg", "big/key[13]"} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		_, err = p.Evaluate(tool.ModeNormal, &spec, args)
		assert.NoError(t, err, "%q", path)
	}
	for _, path := range []string{"big/key[12]", "big/key[0-9]", "big/k[e]y[2]"} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q matches big/key2", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	// A class that stands for many names still reads the directory.
	args, err := json.Marshal(map[string]string{"path": "big/photos[!x].jpg"})
	require.NoError(t, err)
	rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
	assert.Error(t, err)
	assert.Equal(t, "paths.resolve", rule)
}
