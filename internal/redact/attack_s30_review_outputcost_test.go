package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS30ReviewOutputStringsShareTheBound: 7893499 bounds the bytes
// compared for the long values at 64 MiB per text, but Output scrubs each
// string of a tool's structured output as a text of its own: an output
// of many short strings, each made of the values' common start and each
// just under the bound, costs the bound times the number of strings. Here
// 6 strings of 80 "v"s, with the 13,980 values of 65 bytes of a 1 MiB
// command, each compared at every place. Now one scrubber (one Output)
// has one bound, past which the output is masked whole (fail safe).
func TestAttackS30ReviewOutputStringsShareTheBound(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20-100; i++ {
		fmt.Fprintf(&b, "password=%s%08d ", strings.Repeat("v", 57), i)
	}
	args, err := json.Marshal(map[string]string{"command": b.String()})
	require.NoError(t, err)

	searched := 0
	longSearched = func(n int) { searched += n }
	defer func() { longSearched = nil }()

	strs := make([]string, 6)
	for i := range strs {
		strs[i] = strings.Repeat("v", 80)
	}
	out, err := json.Marshal(strs)
	require.NoError(t, err)
	// The second has an escape, which skips the search of the output as
	// one text: only its strings are searched.
	for _, o := range []string{string(out), strings.Replace(string(out), "v", `\u0076`, 1)} {
		searched = 0
		got := Output(json.RawMessage(o), nil, args)
		assert.LessOrEqual(t, searched, maxLongScan+2<<20, "bytes compared for the long values, over all of the output's strings")
		assert.JSONEq(t, `"`+Mask+`"`, string(got), "past the bound the output is masked whole")
	}

	// An ordinary output echoing one value: it alone is masked.
	searched = 0
	echo := strings.Repeat("v", 57) + "00000042"
	got := Output(json.RawMessage(`{"a":"ordinary","b":"rejected `+echo+`"}`), nil, args)
	assert.JSONEq(t, `{"a":"ordinary","b":"rejected `+Mask+`"}`, string(got))
}
