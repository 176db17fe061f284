package mcptool

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestElementCount(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
	}{
		{`{"a":[1,{"b":[]}]}`, 4},
		{`{"a":"[{[{"}`, 1},
		{`{"a":"\"[{"}`, 1},
		{`{"a":"\\"}[]`, 2},
		{"event: \"\ndata: [[]]\n\n", 2}, // a quote on another line hides nothing
	} {
		var c elementCount
		c.add([]byte(tc.text))
		assert.Equal(t, tc.n, c.n, tc.text)
		// Byte by byte, as a stream may arrive.
		var d elementCount
		for i := range len(tc.text) {
			d.add([]byte{tc.text[i]})
		}
		assert.Equal(t, tc.n, d.n, tc.text)
	}
}

// An event stream is counted event by event: a long stream of small
// events passes, one event over the bound fails the stream.
func TestStreamBoundCountsEachEvent(t *testing.T) {
	small := "event: message\r\ndata: " + manyEmpty(1000) + "\r\n\r\n"
	s := &streamBound{ReadCloser: io.NopCloser(strings.NewReader(strings.Repeat(small, 2*maxMessageElements/1000)))}
	_, err := io.Copy(io.Discard, s)
	require.NoError(t, err)

	big := "data: " + manyEmpty(maxMessageElements/2) + "\ndata: " + manyEmpty(maxMessageElements/2+1) + "\n\n"
	s = &streamBound{ReadCloser: io.NopCloser(strings.NewReader(small + big))}
	var got bytes.Buffer
	_, err = io.Copy(&got, s)
	assert.ErrorIs(t, err, errTooManyElements)
	assert.Less(t, got.Len(), len(small+big), "the event over the bound is not handed on whole")
}
