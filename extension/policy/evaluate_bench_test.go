package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/internal/benchcore"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkEvaluateSearch judges the call of internal/benchall's issue-17
// benchmarks with its governance (a declared path field, "query", given
// "sandbox escape": two words and the whole, each resolved on the host),
// without the executor: where the policy's share of those benchmarks
// goes.
func BenchmarkEvaluateSearch(b *testing.B) {
	p, err := policy.Parse([]byte(`
version: 1
global:
  mode: normal
  forbidden_paths: ["/etc/**", "**/.ssh/**"]
  max_arg_bytes: 64KiB
tools:
  search:
    allowed_in_modes: [normal, alert]
    forbidden_in_modes: [lockdown]
    path_fields: [query]
    forbidden_paths: ["/System/**"]
`))
	if err != nil {
		b.Fatal(err)
	}
	spec := tool.Func("search", "The search test tool", func(context.Context, benchcore.SearchArgs) (string, error) { return "", nil }).Spec()
	args := json.RawMessage(benchcore.Args)
	run := func(b *testing.B) {
		if _, err := p.Evaluate("normal", &spec, args); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.Evaluate("normal", &spec, args); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("pwd", run)
	// $PWD names the working directory through a link (a shell started
	// in a linked directory): the policy places relative paths under
	// that name, which it checks with a stat of each.
	b.Run("pwd_through_link", func(b *testing.B) {
		wd, err := os.Getwd()
		if err != nil {
			b.Fatal(err)
		}
		link := filepath.Join(b.TempDir(), "wd")
		if err := os.Symlink(wd, link); err != nil {
			b.Fatal(err)
		}
		b.Setenv("PWD", link)
		run(b)
	})
}
