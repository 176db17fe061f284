package ratelimit_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Each principal may send two messages per hour; the third call is refused
// at once, retryable, with the time until a token is back.
func Example() {
	send := func(ctx context.Context, in struct {
		To string `json:"to"`
	}) (string, error) {
		return "sent to " + in.To, nil
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("send_message", "Send a message", send))
	ex := executor.MustNew(reg, executor.WithExtensions(ratelimit.New(ratelimit.PerToolPrincipal("2/hour"))))

	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "alice"})
	for i := 1; i <= 3; i++ {
		res, err := ex.Execute(ctx, tool.Call{ID: fmt.Sprint(i), Name: "send_message", Args: json.RawMessage(`{"to":"bob"}`)})
		if err != nil {
			fmt.Println(i, res.Error.Code, res.Error.Retryable, res.Error.RetryAfter > 0)
			continue
		}
		fmt.Println(i, res.Text())
	}
	// Output:
	// 1 sent to bob
	// 2 sent to bob
	// 3 rate_limited true true
}
