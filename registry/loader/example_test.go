package loader_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/tool"
)

func ExampleLoader() {
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	add := tool.Func("add", "Add two integers", func(_ context.Context, in addArgs) (map[string]int, error) {
		return map[string]int{"sum": in.A + in.B}, nil
	}, tool.WithCategory("math"))
	ld := &loader.Loader{Funcs: loader.FuncTable(add)}

	reg := registry.New()
	err := ld.Load(reg, strings.NewReader(`
tools:
  - name: calculate_sum
    description: Add two numbers together
    type: go
    implementation: {function: add}
    metadata: {category: math, timeout: 5s, risk: lowest}
`), "tools.yaml")
	fmt.Println(err)

	err = ld.Load(reg, strings.NewReader(`
tools:
  - name: calculate_sum
    description: Add two numbers together
    type: go
    implementation: {function: add}
    metadata: {category: math, timeout: 5s}
`), "tools.yaml")
	fmt.Println(err, reg.Names())

	res, _ := executor.MustNew(reg).Execute(context.Background(), tool.Call{Name: "calculate_sum", Args: json.RawMessage(`{"a":2,"b":3}`)})
	fmt.Println(string(res.Output))
	// Output:
	// load tools: tools.yaml:7: tool "calculate_sum": metadata.risk is "lowest": use low, medium or high (nothing was registered)
	// <nil> [calculate_sum]
	// {"sum":5}
}
