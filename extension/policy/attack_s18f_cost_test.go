package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkS18FEvaluateFoldedPath is the cost of forbidden_paths on a
// path argument of many components (the fold runs on each call, and only
// max_arg_bytes bounds the path): ASCII lower case (no fold), ASCII with
// capitals, and non-ASCII components, which take the whole Unicode fold.
// The fold adds a few per cent; what grows with the square of the path's
// length is internal/hostpath.ResolveIn's path.Join per component.
func BenchmarkS18FEvaluateFoldedPath(b *testing.B) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**", "/etc/**", "secrets/*"]}`))
	if err != nil {
		b.Fatal(err)
	}
	type in struct {
		Path string `json:"path" toolbelt:"path"`
	}
	spec := tool.Func("read_any", "Read a file", func(context.Context, in) (string, error) { return "", nil }).Spec()
	for _, c := range []struct{ name, comp string }{
		{"ascii", "abcd"},
		{"capitals", "ABCD"},
		{"unicode", "Çé\u0301ß"},
	} {
		for _, size := range []int{4 << 10, 16 << 10} {
			path := "/" + strings.Repeat(c.comp+"/", size/(len(c.comp)+1)) + "x"
			args, err := json.Marshal(map[string]string{"path": path})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%dKiB", c.name, size>>10), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, _ = p.Evaluate(tool.ModeNormal, &spec, args)
				}
			})
		}
	}
}
