package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool that expands its path argument as a glob (filepath.Glob,
// Python's glob.glob, a "read these files" tool) reads every file the
// pattern matches. The policy judged "DIR/secre*/key" and
// "DIR/home/.ss?/id" as the names they spell, which no forbidden pattern
// names, while filepath.Glob gave DIR/secrets/key and DIR/home/.ssh/id.
// Seen failing first: every case was allowed. Each path the argument
// matches on the host is judged now.
func TestAttackS26PathArgumentExpandedAsAGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"secrets/key", "home/.ssh/id", "notes/a.txt", "notes/b.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600))
	}
	gov := fmt.Sprintf(`global: {forbidden_paths: [%q, "**/.ssh/**"]}`, dir+"/secrets/**")
	p, err := policy.Parse([]byte(gov), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{
		dir + "/secre*/key",
		dir + "/secrets/?ey",
		dir + "/*/key",
		dir + "/home/.ss?/id",
		dir + "/home/.ss[h]/i[d]",
		dir + "/home/*/id",
		"secre*/key",    // relative: in the base directory
		"[s]ecrets/*",   // a class
		"home/.*/id",    // a dot name
		"notes/../sec*", // the directory itself
	} {
		matches, err := filepath.Glob(filepath.Join(dir, path))
		if filepath.IsAbs(path) {
			matches, err = filepath.Glob(path)
		}
		require.NoError(t, err)
		require.NotEmpty(t, matches, "%q matches a forbidden file, as a globbing tool reads it", path)
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q reaches a forbidden file through the glob", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
		if err != nil {
			// The refusal names the argument, not the forbidden file.
			assert.NotContains(t, err.Error(), ".ssh/id", "%q", path)
			assert.NotContains(t, err.Error(), "secrets/key", "%q", path)
		}
	}
	// A glob that matches only allowed files is allowed.
	for _, path := range []string{dir + "/notes/*.txt", "notes/?.txt", "nothing*/here"} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		_, err = p.Evaluate(tool.ModeNormal, &spec, args)
		assert.NoError(t, err, "%q", path)
	}
}

// "**" in a glob spans directories (doublestar, Python's glob with
// recursive=True, bash's globstar): "DIR/**/id" reaches DIR/home/.ssh/id,
// which filepath.Glob, reading it as "*", does not find. The directory in
// front of it is judged as one the tool reads below, as the built-in
// list and search tools' directories are: refused when paths under it
// may match a forbidden pattern. Seen failing first: both were allowed.
func TestAttackS26PathArgumentWithARecursiveGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"secrets/key", "home/.ssh/id", "notes/a.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600))
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**", "secrets/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{dir + "/**/id", "**/id"} {
		matches, err := doublestar.FilepathGlob(filepath.Join(dir, path))
		if filepath.IsAbs(path) {
			matches, err = doublestar.FilepathGlob(path)
		}
		require.NoError(t, err)
		require.NotEmpty(t, matches, "%q matches a forbidden file, as a doublestar tool reads it", path)
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q reaches a forbidden file through the glob", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	// Below a directory no forbidden pattern reaches into, allowed.
	strict, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	args, err := json.Marshal(map[string]string{"path": "notes/**/*.txt"})
	require.NoError(t, err)
	_, err = strict.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}

// With WithWorkspace, a tool that does not name a workspace of its own
// (a Go tool, a shell command) has its paths resolved in the policy's
// workspace, and may expand them as globs as well: "secre*/key" read
// secrets/key. Seen failing first: it was allowed.
func TestAttackS26GlobOfAToolResolvedInThePolicysWorkspace(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("x"), 0o600))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", "**/.ssh/**"]}`), policy.WithWorkspace(ws))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{"secre*/key", "[s]ecrets/*", "**/key"} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
}

// A glob with {a,b} alternatives, as bash, doublestar and Node's
// minimatch expand it: "{notes,secrets}/key" is secrets/key to such a
// tool, while filepath.Glob reads the braces as written and matched
// nothing. Seen failing first: every case was allowed.
func TestAttackS26PathArgumentWithBraceAlternatives(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"secrets/key", "home/.ssh/id", "notes/a.txt", "docs/a.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600))
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", "**/.ssh/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{
		"{notes,secrets}/key",
		"secr{e,x}ts/key",
		"{x,{y,secrets}}/key",
		dir + "/home/.{ssh,x}/id",
		"{notes,sec*}/key",
	} {
		matches, err := doublestar.FilepathGlob(filepath.Join(dir, path))
		if filepath.IsAbs(path) {
			matches, err = doublestar.FilepathGlob(path)
		}
		require.NoError(t, err)
		require.NotEmpty(t, matches, "%q matches a forbidden file, as a doublestar tool reads it", path)
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	args, err := json.Marshal(map[string]string{"path": "{notes,docs}/a.txt"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}

// Reading a path argument as a glob (above) made the policy read every
// directory the glob names: "/*/*/*/*/*/*/nothing" cost filepath.Glob 100 s
// on a development machine for one argument that matched nothing, and
// "DIR/*/*/nothing" here looks at 1,200 entries in 40 directories. The
// glob is now read level by level, at most 16,384 entries and 1,024 paths
// a level: past that the argument is refused. Counted, not timed: the old
// reading allowed it after reading every directory. Seen failing first.
func TestAttackS26GlobArgumentCostIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		sub := filepath.Join(dir, fmt.Sprint("a", i))
		require.NoError(t, os.Mkdir(sub, 0o755))
		for j := range 30 {
			require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprint("f", j)), nil, 0o644))
		}
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	args, err := json.Marshal(map[string]string{"path": "*/*/nothing"})
	require.NoError(t, err)
	rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
	require.Error(t, err, "a glob over 1,200 paths a level was read whole")
	assert.Equal(t, "paths.resolve", rule)
	// A glob within the bound is read and judged.
	args, err = json.Marshal(map[string]string{"path": "a1/*/nothing"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}

// The bound holds for a call's path arguments together: a list of 20
// globs, each reading a directory of 1,000 entries, within the bound one
// by one, read 20,000 entries. Seen failing first with a bound per
// argument: allowed.
func TestAttackS26GlobBoundIsPerCall(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "big"), 0o755))
	for i := range 1000 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "big", fmt.Sprint("f", i)), nil, 0o644))
	}
	var globs []string
	for i := range 20 {
		globs = append(globs, fmt.Sprintf("big/*/nothing%d", i))
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	type in struct {
		Paths []string `json:"paths" toolbelt:"path"`
	}
	spec := tool.Func("read_many", "Read files", func(context.Context, in) (string, error) { return "", nil }).Spec()
	one, err := json.Marshal(map[string][]string{"paths": globs[:1]})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, one)
	require.NoError(t, err, "one glob of 1,000 entries is within the bound")
	all, err := json.Marshal(map[string][]string{"paths": globs})
	require.NoError(t, err)
	rule, err := p.Evaluate(tool.ModeNormal, &spec, all)
	require.Error(t, err, "20 globs read 20,000 entries")
	assert.Equal(t, "paths.resolve", rule)
}
