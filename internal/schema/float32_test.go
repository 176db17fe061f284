package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

type f32Inner struct {
	V *float32 `json:"v"`
}

type f32Embedded struct {
	E float32 `json:"e"`
}

type f32Args struct {
	f32Embedded
	Top   float64             `json:"top"`
	In    f32Inner            `json:"in"`
	List  []float32           `json:"list"`
	Map   map[string]float32  `json:"map"`
	Deep  []map[string]*f32In `json:"deep"`
	Named float32
}

type f32In struct {
	X float32  `json:"x"`
	Y float64  `json:"y"`
	Z []*f32In `json:"z"`
}

// Float32Bounds finds an exclusive bound on every kind of place a float32
// is decoded into, through the subschemas applied in place, and nowhere
// else.
func TestFloat32Bounds(t *testing.T) {
	typ := reflect.TypeFor[f32Args]()
	for raw, want := range map[string]string{
		`{"type":"object","properties":{"in":{"properties":{"v":{"exclusiveMinimum":0}}}}}`:                                                            "field in.v",
		`{"type":"object","properties":{"list":{"items":{"exclusiveMaximum":1}}}}`:                                                                     "field list[]",
		`{"type":"object","properties":{"map":{"additionalProperties":{"exclusiveMaximum":1}}}}`:                                                       "field map{}",
		`{"type":"object","properties":{"map":{"patternProperties":{"^a":{"exclusiveMaximum":1}}}}}`:                                                   "field map{}",
		`{"type":"object","properties":{"e":{"exclusiveMaximum":1}}}`:                                                                                  "field e",
		`{"type":"object","properties":{"NAMED":{"exclusiveMaximum":1}}}`:                                                                              "field Named",
		`{"type":"object","allOf":[{"properties":{"in":{"$ref":"#/$defs/i"}}}],"$defs":{"i":{"properties":{"v":{"anyOf":[{"exclusiveMinimum":0}]}}}}}`: "field in.v",
		`{"type":"object","properties":{"deep":{"items":{"additionalProperties":{"$ref":"#/$defs/n"}}}},"$defs":{"n":{"properties":{"x":{"type":"number"},"z":{"items":{"$ref":"#/$defs/n"}}},"then":{"properties":{"x":{"exclusiveMinimum":0}}}}}}`: "field deep[]{}.x",
		`{"type":"object","additionalProperties":{"exclusiveMaximum":1}}`:                                                                "field e",
		`{"type":"object","patternProperties":{"^N":{"exclusiveMaximum":1}}}`:                                                            "field Named",
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"e":{"maximum":1,"exclusiveMaximum":true}}}`: "field e",
		// No float32 under an exclusive bound:
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"e":{"maximum":1,"exclusiveMaximum":false}}}`:                           "",
		`{"type":"object","properties":{"top":{"exclusiveMaximum":1},"in":{"properties":{"v":{"maximum":1}}}}}`:                                                     "",
		`{"type":"object","properties":{"e":{"maximum":1},"top":{},"in":{},"list":{},"map":{},"deep":{},"Named":{}},"additionalProperties":{"exclusiveMaximum":1}}`: "",
		`{"type":"object","properties":{"deep":{"items":{"additionalProperties":{"properties":{"y":{"exclusiveMaximum":1}}}}}}}`:                                    "",
		`{"type":"object","properties":{"in":{"properties":{"v":{"enum":[{"exclusiveMinimum":0}]}}}}}`:                                                              "",
	} {
		err := Float32Bounds(typ, json.RawMessage(raw))
		if want == "" {
			assert.NoError(t, err, raw)
			continue
		}
		assert.ErrorContains(t, err, want+":", raw)
	}
}
