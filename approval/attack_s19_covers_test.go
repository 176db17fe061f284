package approval

import (
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An allow rule's "/**" pattern is judged against a directory argument in
// time linear in the argument: a model's long directory path (the
// executor lets 1 MiB of arguments through) cost seconds of the approval
// gate, as sandbox.MatchWithin did before ef6867b, because covers matched
// the pattern against each directory above the path in turn (each
// path.Dir and each match as long as the path). Seen failing first: about
// 10 s for the 128 KiB path below. covers is now sandbox.MatchWithin,
// whose one pass over such a path TestAttackS18FGlobWithinIsOnePass pins
// without a clock (a bound of 1 s here failed a CI run on a loaded
// machine); this test keeps the answers for the long path.
func TestAttackS19AllowRuleCoversALongPath(t *testing.T) {
	_, tools := fileTools(t, []string{"src"}, nil)
	p := MustPolicy(ModeAuto, AllowRules("list_directory(src/**)", "search_files(**/build/**)"))
	long := "src/" + strings.Repeat("a/", 64<<10) + "b"
	for _, tc := range []struct {
		tool string
		want Action
	}{
		{"list_directory", ActionAllow},
		{"search_files", ActionAsk},
	} {
		args, err := json.Marshal(map[string]string{"path": long, "pattern": "k"})
		assert.NoError(t, err)
		req := &Request{Call: tool.Call{Name: tc.tool, Args: args}, Spec: tools[tc.tool].Spec(), Level: classify.Warning}
		ev := p.Evaluate(tools[tc.tool], req)
		assert.Equal(t, tc.want, ev.Action, "%s: %+v", tc.tool, ev.Reason)
	}
}

// covers answers as the walk over every directory above dir did, on the
// patterns allow rules are written with and names that are and are not
// under them.
func TestCoversAsTheWalk(t *testing.T) {
	walk := func(pattern, dir string) bool {
		if pattern == "**" {
			return true
		}
		q, ok := strings.CutSuffix(pattern, "/**")
		if !ok || q == "" {
			return false
		}
		for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
			if ok, err := doublestar.Match(q, d); ok && err == nil {
				return true
			}
		}
		return false
	}
	patterns := []string{"**", "docs/**", "**/build/**", "src/*/gen/**", "/etc/**", "/**", "*/**",
		"{docs,src}/**", "d?cs/**", "[ds]ocs/**", "docs", "docs/*", "**/**", "a/**/b/**", `do\*s/**`, "/", "***/**"}
	names := []string{".", "/", "docs", "docs/a", "docs/a/b", "src/x/gen", "src/x/gen/y", "src/gen", "x/build",
		"x/build/y", "build", "a/b", "a/x/b/c", "/etc", "/etc/ssh", "/var", "do*s/x", "docs2/a", "d", "x/y/z"}
	for _, pat := range patterns {
		for _, name := range names {
			assert.Equal(t, walk(pat, name), covers(pat, name), "covers(%q, %q)", pat, name)
		}
	}
}
