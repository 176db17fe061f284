package tool_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolbelt-go/toolbelt/tool"
)

type GreetArgs struct {
	Name     string `json:"name" jsonschema_description:"Who to greet"`
	Language string `json:"language,omitempty" jsonschema:"enum=en,enum=pt"`
	APIKey   string `json:"api_key,omitempty" toolbelt:"secret"`
}

// Func reflects the schemas from the argument and result types once, when
// the tool is built; secret fields are listed for redaction.
func ExampleFunc() {
	greet := func(ctx context.Context, in GreetArgs) (string, error) {
		if in.Language == "pt" {
			return "Olá, " + in.Name, nil
		}
		return "Hello, " + in.Name, nil
	}
	t := tool.Func("greet", "Greet someone", greet, tool.WithRisk(tool.RiskLow), tool.ReadOnly())
	spec := t.Spec()
	fmt.Println(spec.Name, spec.Risk, spec.Secrets)
	fmt.Println(string(spec.InputSchema))
	// Output:
	// greet low [api_key]
	// {"additionalProperties":false,"properties":{"api_key":{"type":"string"},"language":{"enum":["en","pt"],"type":"string"},"name":{"description":"Who to greet","type":"string"}},"required":["name"],"type":"object"}
}

// Errors carry a code from a closed set; errors.Is matches by code.
func ExampleError() {
	err := fmt.Errorf("calling the API: %w", tool.NewError(tool.CodeRateLimited, "quota spent"))
	var te *tool.Error
	if errors.As(err, &te) {
		fmt.Println(te.Code, te.Retryable, errors.Is(err, tool.ErrRateLimited))
	}
	// Output:
	// rate_limited true true
}
