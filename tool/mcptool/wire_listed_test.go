package mcptool

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEachListed(t *testing.T) {
	for _, tc := range []struct {
		result string
		names  []string
		ok     bool
	}{
		{`{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"x"}`, []string{"a", "b"}, true},
		{`{"nextCursor":{"tools":[1]},"Tools":[{"name":"a"}]}`, []string{"a"}, true},
		{`{"tools":null,"tools":[{"name":"a"}]}`, []string{"a"}, true},
		{`{"tools":{"name":"a"}}`, nil, true},
		{`[]`, nil, true},
		{`{"tools":[{"name":"a"}`, nil, true}, // the SDK refuses it
		{`{"tools":{"a":[]},"tools":` + manyEmpty(maxListing+1) + `}`, nil, false},
		{`{"tools":` + manyEmpty(maxListing) + `}`, nil, true},
		{`{"tools":` + manyEmpty(maxListing+1) + `}`, nil, false},
		{`{"tools":[],"tOOls":` + manyEmpty(maxListing+1) + `}`, nil, false},
	} {
		var names []string
		ok := eachListed([]byte(tc.result), func(raw json.RawMessage) {
			var v struct{ Name string }
			if json.Unmarshal(raw, &v) == nil && v.Name != "" {
				names = append(names, v.Name)
			}
		})
		assert.Equal(t, tc.ok, ok, "%.80s", tc.result)
		assert.Equal(t, tc.names, names, "%.80s", tc.result)
	}
}
