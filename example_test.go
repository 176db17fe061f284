package toolbelt_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type WeatherArgs struct {
	City  string `json:"city" jsonschema_description:"City name, e.g. Lisbon"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial"`
}

type Weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

// One call registers a Go function, one call exports its definition for a
// provider, one call executes what the model sent back.
func Example() {
	weather := func(ctx context.Context, in WeatherArgs) (Weather, error) {
		return Weather{City: in.City, Temp: 21.5}, nil
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("weather", "Current weather for a city", weather, tool.ReadOnly()))

	defs, _ := reg.Export(registry.Anthropic)
	fmt.Println(string(defs.Tools[0]))

	ex := executor.MustNew(reg)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "toolu_1", Name: "weather", Args: json.RawMessage(`{"city":"Lisbon"}`)})
	fmt.Println(res.Status, string(res.Output), err)

	res, err = ex.Execute(context.Background(), tool.Call{ID: "toolu_2", Name: "weather", Args: json.RawMessage(`{"units":"kelvin"}`)})
	fmt.Println(res.Status, err)
	// Output:
	// {"description":"Current weather for a city","input_schema":{"additionalProperties":false,"properties":{"city":{"description":"City name, e.g. Lisbon","type":"string"},"units":{"enum":["metric","imperial"],"type":"string"}},"required":["city"],"type":"object"},"name":"weather"}
	// succeeded {"city":"Lisbon","temp":21.5} <nil>
	// failed invalid_arguments: city: required; units: must be one of "metric", "imperial"
}
