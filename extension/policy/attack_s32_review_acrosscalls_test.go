package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// TestAttackS32ReviewNothingKeptAcrossCalls, on 3b5bcc5's getwd (getcwd
// and logicalWd's answer kept for the call) and a566fe5/dca1144's
// resolution: one policy judges a sequence of calls between which $PWD,
// the working directory and a link change. Each call sees the host as it
// is at that call: a pattern that names the directory by its link's
// name refuses secrets/key only while $PWD is that name, a link flipped
// to /etc is refused and back to docs allowed, a working directory that
// is /etc through a link refuses passwd, and one that was removed
// refuses every relative path, each allowed again afterwards.
func TestAttackS32ReviewNothingKeptAcrossCalls(t *testing.T) {
	root := s32Project(t)
	proj := filepath.Join(root, "real", "proj")
	require.NoError(t, os.Symlink("/etc", filepath.Join(root, "etclink")))
	flip := filepath.Join(proj, "flip")
	point := func(target string) {
		_ = os.Remove(flip)
		require.NoError(t, os.Symlink(target, flip))
	}
	point("docs")
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["$ROOT/l*/proj/secrets/**", "/etc/**"]}
tools: {read: {path_fields: [path]}}`), policy.WithEnv(func(k string) (string, bool) { return root, k == "ROOT" }))
	require.NoError(t, err)
	spec := tool.Func("read", "Read a file", func(context.Context, s32ReadArgs) (string, error) { return "", nil }).Spec()
	judge := func(name string) string {
		b, _ := json.Marshal(s32ReadArgs{Path: name})
		rule, err := p.Evaluate("normal", &spec, b)
		if err == nil {
			return "allowed"
		}
		return rule
	}
	t.Chdir(proj)
	steps := []struct {
		do   func()
		name string
		want string
	}{
		{func() { t.Setenv("PWD", proj) }, "secrets/key", "allowed"},
		{func() { t.Setenv("PWD", root+"/link/proj") }, "secrets/key", "global.forbidden_paths"},
		{func() { t.Setenv("PWD", proj) }, "secrets/key", "allowed"},
		{func() { t.Setenv("PWD", root+"/link/proj/") }, "./secrets//key", "global.forbidden_paths"},
		{func() { t.Setenv("PWD", root+"/link/proj/sub/..") }, "secrets/key", "global.forbidden_paths"},
		{func() { t.Setenv("PWD", root+"/link/other") }, "secrets/key", "allowed"},
		{func() {}, "flip/passwd", "allowed"},
		{func() { point("/etc") }, "flip/passwd", "global.forbidden_paths"},
		{func() { point("/etc/") }, "flip//passwd/", "global.forbidden_paths"},
		{func() { point("docs") }, "flip/passwd", "allowed"},
		{func() { point("../../etclink") }, "flip/passwd", "global.forbidden_paths"},
		{func() { point("docs") }, "flip/passwd", "allowed"},
		{func() { t.Chdir(filepath.Join(root, "etclink")) }, "passwd", "global.forbidden_paths"},
		{func() { t.Chdir(proj) }, "passwd", "allowed"},
		{func() {
			t.Chdir(filepath.Join(root, "gone"))
			require.NoError(t, os.Remove(filepath.Join(root, "gone")))
		}, "docs/readme", "paths.resolve"},
		{func() { t.Chdir(proj) }, "docs/readme", "allowed"},
		{func() { t.Setenv("PWD", root+"/link/proj") }, "secrets/key", "global.forbidden_paths"},
	}
	held := 0
	for i, s := range steps {
		s.do()
		if assert.Equal(t, s.want, judge(s.name), "step %d: %q", i, s.name) {
			held++
		}
	}
	t.Logf("%d of %d calls judged as the host was at that call", held, len(steps))
}
