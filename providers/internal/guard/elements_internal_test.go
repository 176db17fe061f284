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

// readEvents reads stream through eventElements as the SDKs read it and
// returns what was read and the error reading stopped at.
func readEvents(stream string) (string, error) {
	body := &eventElements{limited: &limited{rc: io.NopCloser(strings.NewReader(stream)), left: 1 << 30, g: New(0, "", "test")},
		name: "test.MaxResponseElements", inField: true}
	b, err := io.ReadAll(body)
	return string(b), err
}

// An event stream's events are counted one by one, their data lines only:
// many events of a few elements pass, one event of more than MaxElements
// fails within it, however its lines end and whatever its other fields
// hold.
func TestEventElements(t *testing.T) {
	many := "[" + strings.Repeat("{},", MaxElements) + "{}]"
	few := "[" + strings.Repeat("{},", 100) + "{}]"
	for name, tc := range map[string]struct {
		stream string
		over   bool
	}{
		"events of a few":           {strings.Repeat("event: x\ndata: "+few+"\n\n", 1000), false},
		"one of many":               {"data: " + few + "\n\ndata: " + many + "\n\n", true},
		"many split over data":      {"data: [" + strings.Repeat("{},", MaxElements/2) + "\ndata: " + strings.Repeat("{},", MaxElements/2) + "{}]\n\n", true},
		"crlf":                      {"data: " + few + "\r\n\r\ndata: " + many + "\r\n\r\n", true},
		"cr":                        {"data: " + few + "\r\rdata: " + many + "\r\r", true},
		"many in another field":     {"event: " + many + "\nid: " + many + "\n: " + many + "\ndata: {}\n\n", false},
		"a quote in another field":  {"event: \"\ndata: " + many + "\n\n", true},
		"a broken event then many":  {"data: [\"\n\ndata: " + many + "\n\n", true},
		"no space after data":       {"data:" + many + "\n\n", true},
		"a long field name":         {"dataaaaaaa: " + many + "\n\n", false},
		"a data without a colon":    {"data\n\ndata: " + few + "\n\n", false},
		"one of many, no blank end": {"data: " + many, true},
	} {
		read, err := readEvents(tc.stream)
		if !tc.over {
			require.NoError(t, err, name)
			assert.Equal(t, tc.stream, read, name)
			continue
		}
		var tooMany *tooManyElements
		if assert.True(t, errors.As(err, &tooMany), "%s: %v", name, err) {
			assert.ErrorIs(t, err, ErrTooLarge, name)
			assert.Contains(t, err.Error(), "an event of the response stream holds more than 16384 array elements (test.MaxResponseElements)", name)
		}
		assert.Less(t, len(read), len(tc.stream), "%s: the event is not read whole", name)
	}
}
