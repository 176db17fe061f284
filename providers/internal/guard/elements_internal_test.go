package guard

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elements counts the elements of every array, at any depth, and nothing
// in a string.
func TestElementsCount(t *testing.T) {
	for _, tc := range []struct {
		json string
		n    int
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
		var e elements
		for _, c := range []byte(tc.json) {
			e.add(c)
		}
		assert.Equal(t, tc.n, e.n, tc.json)
	}
}

// read reads body through bodyElements as the SDKs read it and returns
// what was read and the error reading stopped at.
func read(body string) (string, error) {
	b, err := io.ReadAll(&bodyElements{limited: &limited{rc: io.NopCloser(strings.NewReader(body)), left: 1 << 30, g: New(0, "", "test")},
		name: "test.MaxResponseElements", events: events{inField: true}})
	return string(b), err
}

// A body is counted as a JSON value (its first, the one a decoder reads)
// and as an event stream, whose events are counted one by one, their data
// lines only: many events of a few elements pass, one event of more than
// MaxElements fails within it, however its lines end and whatever its
// other fields hold, and so does a value of more.
func TestBodyElements(t *testing.T) {
	many := "[" + strings.Repeat("{},", MaxElements) + "{}]"
	few := "[" + strings.Repeat("{},", 100) + "{}]"
	const value, event = "the response body holds", "an event of the response stream holds"
	for name, tc := range map[string]struct {
		body string
		over string // what the error says is over, "" when none
	}{
		"events of a few":           {strings.Repeat("event: x\ndata: "+few+"\n\n", 1000), ""},
		"one of many":               {"data: " + few + "\n\ndata: " + many + "\n\n", event},
		"many split over data":      {"data: [" + strings.Repeat("{},", MaxElements/2) + "\ndata: " + strings.Repeat("{},", MaxElements/2) + "{}]\n\n", event},
		"crlf":                      {"data: " + few + "\r\n\r\ndata: " + many + "\r\n\r\n", event},
		"cr":                        {"data: " + few + "\r\rdata: " + many + "\r\r", event},
		"many in another field":     {"event: " + many + "\nid: " + many + "\n: " + many + "\ndata: {}\n\n", ""},
		"a quote in another field":  {"event: \"\ndata: " + many + "\n\n", event},
		"a broken event then many":  {"data: [\"\n\ndata: " + many + "\n\n", event},
		"no space after data":       {"data:" + many + "\n\n", event},
		"a long field name":         {"dataaaaaaa: " + many + "\n\n", ""},
		"a data without a colon":    {"data\n\ndata: " + few + "\n\n", ""},
		"one of many, no blank end": {"data: " + many, event},
		"a value of a few":          {`{"a":` + few + `,"b":` + few + "}", ""},
		"a value of many":           {"\n " + `{"a":` + many + "}", value},
		"many past the value":       {few + many, ""},
		"a text of many":            {`"` + many + `"`, ""},
	} {
		got, err := read(tc.body)
		if tc.over == "" {
			require.NoError(t, err, name)
			assert.Equal(t, tc.body, got, name)
			continue
		}
		var tooMany *tooManyElements
		if assert.True(t, errors.As(err, &tooMany), "%s: %v", name, err) {
			assert.ErrorIs(t, err, ErrTooLarge, name)
			assert.Contains(t, err.Error(), tc.over+" more than 16384 array elements (test.MaxResponseElements)", name)
		}
		assert.Less(t, len(got), len(tc.body), "%s: what is over is not read", name)
	}
}
