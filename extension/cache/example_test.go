package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	runs := 0
	reg := registry.New()
	reg.MustRegister(tool.Func("lookup", "Look a word up", func(_ context.Context, in struct {
		Word string `json:"word"`
	}) (string, error) {
		runs++
		return "definition of " + in.Word, nil
	}, tool.ReadOnly(), tool.WithVersion("1")))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New(cache.WithTTL(time.Minute))))

	for _, args := range []string{`{"word":"go"}`, ` { "word" : "go" } `} {
		res, _ := ex.Execute(context.Background(), tool.Call{Name: "lookup", Args: []byte(args)})
		fmt.Println(res.Text(), res.Metadata[cache.MetaKey])
	}
	fmt.Println("backend runs:", runs)
	// Output:
	// definition of go miss
	// definition of go hit
	// backend runs: 1
}
