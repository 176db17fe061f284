package registry_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type LookupArgs struct {
	ID     string   `json:"id"`
	Fields []string `json:"fields,omitempty"`
}

// Export renders the same tool for each provider. OpenAI strict mode makes
// every property required and optional ones nullable; the executor treats
// those nulls as absent.
func ExampleRegistry_Export() {
	reg := registry.New()
	reg.MustRegister(tool.Func("lookup", "Look a record up", func(ctx context.Context, in LookupArgs) (string, error) {
		return in.ID, nil
	}))
	for _, f := range []registry.Format{registry.OpenAIChat, registry.Gemini} {
		ex, _ := reg.Export(f)
		body, _ := json.Marshal(ex)
		fmt.Println(f, string(body))
	}
	// Output:
	// openai_chat [{"function":{"description":"Look a record up","name":"lookup","parameters":{"additionalProperties":false,"properties":{"fields":{"items":{"type":"string"},"type":["array","null"]},"id":{"type":"string"}},"required":["fields","id"],"type":"object"},"strict":true},"type":"function"}]
	// gemini [{"functionDeclarations":[{"description":"Look a record up","name":"lookup","parameters":{"properties":{"fields":{"items":{"type":"string"},"type":"array"},"id":{"type":"string"}},"required":["id"],"type":"object"}}]}]
}
