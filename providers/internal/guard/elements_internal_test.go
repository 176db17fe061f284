package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// overElements counts the elements of every array, at any depth, and
// nothing in a string.
func TestOverElements(t *testing.T) {
	for _, tc := range []struct {
		json string
		n    int // elements
	}{
		{`{}`, 0},
		{`[]`, 0},
		{`[ ]`, 0},
		{`[1]`, 1},
		{`[1, 2 ,3]`, 3},
		{`[[], [], {}]`, 3},
		{`[[1,2],[3]]`, 5},
		{`{"a":[null,null],"b":{"c":[{}]}}`, 3},
		{`{"a":1,"b":2}`, 0},
		{`["[1,2,3]", "a,b", "\"],[", "\\"]`, 4},
		{`{"text":"[[[,,,]]]"}`, 0},
		{`[1,]`, 2}, // broken: counted no fewer than a decoder sees
	} {
		assert.False(t, overElements([]byte(tc.json), tc.n), "%s has %d elements", tc.json, tc.n)
		if tc.n > 0 {
			assert.True(t, overElements([]byte(tc.json), tc.n-1), "%s has over %d elements", tc.json, tc.n-1)
		}
	}
}
