package guard

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elements counts the elements of every array and the members of every
// object, at any depth, and nothing in a string.
func TestElementsCount(t *testing.T) {
	for _, tc := range []struct {
		json       string
		n, members int
	}{
		{`{}`, 0, 0},
		{`{ }`, 0, 0},
		{`[]`, 0, 0},
		{`[ ]`, 0, 0},
		{`[1]`, 1, 0},
		{`[1, 2 ,3]`, 3, 0},
		{`[[], [], {}]`, 3, 0},
		{`[[1,2],[3]]`, 5, 0},
		{`{"a":[null,null],"b":{"c":[{}]}}`, 3, 3},
		{`{"a":1,"b":2}`, 0, 2},
		{`{ "a" : 1 , "b":{"c":{"d":{}}}}`, 0, 4},
		{`["[1,2,3]", "a,b", "\"],[", "\\"]`, 4, 0},
		{`{"text":"[[[,,,]]]", "{a,b}":"{,}"}`, 0, 2},
		{`[1,]`, 2, 0},     // broken: counted no fewer than a decoder sees
		{`{"a":1,}`, 0, 2}, // broken too
	} {
		var e elements
		for _, c := range []byte(tc.json) {
			e.add(c)
		}
		assert.Equal(t, tc.n, e.n, "elements of %s", tc.json)
		assert.Equal(t, tc.members, e.members, "members of %s", tc.json)
	}
}

// read reads body through bodyElements as the SDKs read it and returns
// what was read and the error reading stopped at.
func read(body string) (string, error) {
	b, err := io.ReadAll(newBodyElements(&limited{rc: io.NopCloser(strings.NewReader(body)), left: 1 << 30, g: New(0, "", "test")}, "test", freeMember{}))
	return string(b), err
}

// A body is counted as a JSON value (its first, the one a decoder reads)
// and as an event stream, whose events are counted one by one, their data
// lines only: many events of a few elements or members pass, one event of
// more than MaxElements or MaxMembers fails within it, however its lines
// end and whatever its other fields hold, and so does a value of more.
func TestBodyElements(t *testing.T) {
	many := "[" + strings.Repeat("{},", MaxElements) + "{}]"
	few := "[" + strings.Repeat("{},", 100) + "{}]"
	var keys strings.Builder
	for i := range MaxMembers + 1 {
		fmt.Fprintf(&keys, `"%x":{},`, i)
	}
	manyKeys := "{" + strings.TrimSuffix(keys.String(), ",") + "}"
	fewKeys := `{"a":{"b":1,"c":2},"d":[{"e":3}]}`
	const value, event = "the response body holds", "an event of the response stream holds"
	const elementsOver, membersOver = " more than 16384 array elements (test.MaxResponseElements)", " more than 16384 object members (test.MaxResponseMembers)"
	for name, tc := range map[string]struct {
		body string
		over string // what the error says is over, "" when none
	}{
		"events of a few keys":         {strings.Repeat("data: "+fewKeys+"\n\n", 10000), ""},
		"an event of many keys":        {"data: " + fewKeys + "\n\ndata: " + manyKeys + "\n\n", event + membersOver},
		"a value of many keys":         {manyKeys, value + membersOver},
		"a value of many keys, nested": {`{"a":[` + manyKeys + `]}`, value + membersOver},
		"keys in a text":               {`"` + manyKeys + `"`, ""},
		"keys in another field":        {"event: " + manyKeys + "\ndata: {}\n\n", ""},
		"events of a few":              {strings.Repeat("event: x\ndata: "+few+"\n\n", 1000), ""},
		"one of many":                  {"data: " + few + "\n\ndata: " + many + "\n\n", event},
		"many split over data":         {"data: [" + strings.Repeat("{},", MaxElements/2) + "\ndata: " + strings.Repeat("{},", MaxElements/2) + "{}]\n\n", event},
		"crlf":                         {"data: " + few + "\r\n\r\ndata: " + many + "\r\n\r\n", event},
		"cr":                           {"data: " + few + "\r\rdata: " + many + "\r\r", event},
		"many in another field":        {"event: " + many + "\nid: " + many + "\n: " + many + "\ndata: {}\n\n", ""},
		"a quote in another field":     {"event: \"\ndata: " + many + "\n\n", event},
		"a broken event then many":     {"data: [\"\n\ndata: " + many + "\n\n", event},
		"no space after data":          {"data:" + many + "\n\n", event},
		"a long field name":            {"dataaaaaaa: " + many + "\n\n", ""},
		"a data without a colon":       {"data\n\ndata: " + few + "\n\n", ""},
		"one of many, no blank end":    {"data: " + many, event},
		"a value of a few":             {`{"a":` + few + `,"b":` + few + "}", ""},
		"a value of many":              {"\n " + `{"a":` + many + "}", value},
		"many past the value":          {few + many, ""},
		"a text of many":               {`"` + many + `"`, ""},
	} {
		got, err := read(tc.body)
		if tc.over == "" {
			require.NoError(t, err, name)
			assert.Equal(t, tc.body, got, name)
			continue
		}
		over := tc.over
		if over == value || over == event {
			over += elementsOver
		}
		var tooMany *tooManyValues
		if assert.True(t, errors.As(err, &tooMany), "%s: %v", name, err) {
			assert.ErrorIs(t, err, ErrTooLarge, name)
			assert.Contains(t, err.Error(), over, name)
		}
		assert.Less(t, len(got), len(tc.body), "%s: what is over is not read", name)
	}
}

// A free member's object or array value (a tool's input the model wrote)
// is counted in freeN and not as elements or members; only a key spelt
// exactly as the free name, in an object, starts one, and the text after
// it is counted again.
func TestElementsFreeMember(t *testing.T) {
	for _, tc := range []struct {
		json              string
		n, members, freeN int
	}{
		{`{"input":{"a":[1,2],"b":{}}}`, 0, 1, 4},
		{`{"input":[{},{}],"x":[1,2]}`, 2, 2, 2},
		{`{ "input" : [ 1 , 2 ] , "x" : [3] }`, 1, 2, 2},
		{`{"input":"[1,2]","x":[3]}`, 1, 2, 0},
		{`{"input":1,"x":[3]}`, 1, 2, 0},
		{`{"inp\u0075t":[1,2]}`, 2, 1, 0},            // an escape: not free
		{`{"Input":[1,2]}`, 2, 1, 0},                 // another spelling: not free
		{`{"inputs":[1,2]}`, 2, 1, 0},                // a longer name: not free
		{`["input",[1,2]]`, 4, 0, 0},                 // a string in an array is no key
		{`{"a":"input","b":[1,2]}`, 2, 2, 0},         // nor is a value
		{`{"input",[1,2]}`, 2, 2, 0},                 // broken: no colon, not free
		{`{"input":{"input":[1]},"x":[1]}`, 1, 2, 2}, // a free value in a free value
		{`{"input":[[1],[2]]}[1,2]`, 2, 1, 4},
	} {
		e := elements{free: freeMember{name: "input"}}
		for _, c := range []byte(tc.json) {
			e.add(c)
		}
		assert.Equal(t, tc.n, e.n, "elements of %s", tc.json)
		assert.Equal(t, tc.members, e.members, "members of %s", tc.json)
		assert.Equal(t, tc.freeN, e.freeN, "free values of %s", tc.json)
	}

	// A bounded free member is over its bound past max.
	e := elements{free: freeMember{name: "args", max: 3}}
	for _, c := range []byte(`{"args":[1,2,3]}`) {
		e.add(c)
	}
	assert.Nil(t, e.over())
	for _, c := range []byte(`{"args":[4]}`) {
		e.add(c)
	}
	assert.Equal(t, freeValues, e.over())
}

// A stream is counted as each SDK cuts it too: the Stainless SDKs end a
// line at LF alone (a lone CR is in the line), the genai SDK ends a piece
// at "\n\n" (or at "\r\n\r\n" after a whole value) and takes all after
// its first colon as data. Many events of a few elements pass each way;
// one event of more fails however it is cut.
func TestBodyElementsAsEachSDKCutsAStream(t *testing.T) {
	many := strings.Repeat("{},", MaxElements) + "{}"
	for name, body := range map[string]string{
		"a lone CR in a data line":        "data: {\"a\":1\r,\"b\":[" + many + "]}\n\n",
		"a data line going on in a piece": "data: {\"b\":[\n" + many + "]}\n\n",
		"a field in a piece":              "data: {\"b\":\nx: [" + many + "]}\n\n",
		"CRLF CRLF in an open value":      "data: {\"b\":[" + strings.Repeat("{},", MaxElements/2) + "\r\n\r\n" + strings.Repeat("{},", MaxElements/2) + "{}]}\n\n",
		"CRLF CRLF before the value":      "data: \r\n\r\n{\"b\":[" + many + "]}\n\n",
	} {
		_, err := read(body)
		assert.ErrorIs(t, err, ErrTooLarge, name)
	}
	for name, sep := range map[string]string{"LF": "\n", "CRLF": "\r\n"} {
		var b strings.Builder
		for range 1000 {
			b.WriteString(`data: {"choices":[{"delta":{"content":"x"}},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]}` + sep + sep)
		}
		_, err := read(b.String())
		assert.NoError(t, err, name)
	}
}
