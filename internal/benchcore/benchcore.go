// Package benchcore holds the tool, arguments and plain baseline that the
// executor's and the extensions' benchmarks share, so that every "×
// baseline" figure in the README compares against the very same work.
package benchcore

import (
	"context"
	"encoding/json"

	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Address is a nested struct of SearchArgs.
type Address struct {
	City    string `json:"city"`
	Country string `json:"country,omitempty"`
}

// SearchArgs has nested, enum, bounded and optional fields.
type SearchArgs struct {
	Query string   `json:"query" jsonschema_description:"What to look for, in plain words"`
	Limit int      `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50"`
	Kind  string   `json:"kind,omitempty" jsonschema:"enum=code,enum=docs"`
	Near  *Address `json:"near,omitempty"`
}

// SearchOut is Search's structured output.
type SearchOut struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
	City  string `json:"city,omitempty"`
}

// Search is the benchmarked tool function: it echoes its arguments.
func Search(_ context.Context, in SearchArgs) (SearchOut, error) {
	out := SearchOut{Query: in.Query, Limit: in.Limit}
	if in.Near != nil {
		out.City = in.Near.City
	}
	return out, nil
}

// Args are the benchmarked call's arguments.
var Args = json.RawMessage(`{"query":"sandbox escape","limit":10,"kind":"docs","near":{"city":"Lisbon","country":"PT"}}`)

// NewBaseline returns what hand-rolled code does with Search and Args:
// decode and validate against the same compiled schema the registry would
// use, decode into the struct, call the function, encode the output.
func NewBaseline() (func(context.Context) error, error) { return NewBaselineOf(Search) }

// NewBaselineOf is NewBaseline with another function of SearchArgs.
func NewBaselineOf[O any](fn func(context.Context, SearchArgs) (O, error)) (func(context.Context) error, error) {
	spec := tool.Func("search", "The search test tool", fn).Spec()
	v, err := schema.Compile(spec.InputSchema)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		m, err := schema.Decode(Args)
		if err != nil {
			return err
		}
		if err := v.Validate(m); err != nil {
			return err
		}
		var in SearchArgs
		if err := json.Unmarshal(Args, &in); err != nil {
			return err
		}
		out, err := fn(ctx, in)
		if err != nil {
			return err
		}
		_, err = json.Marshal(out)
		return err
	}, nil
}
