package guard

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// MaxElements bounds the array elements of a response body that is not a
// stream, and of each event of one, over all its arrays at any depth. The
// SDKs decode each element of a list of their types (choices, tool calls,
// output items, content blocks, candidates, parts) into a value of that
// type and its field metadata, 1 to 4.5 KB, be it "{}", "[]" or "null":
// without the bound, a body (or a stream's event) of 768 KiB of "{},"
// asked for 0.1 to 1.2 GB, and one within DefaultMaxBytes for tens of
// gigabytes. An answer of the APIs holds far fewer (a turn of 1024 tool
// calls, each with arguments, holds a few thousand); what it may cost the
// SDK is at most MaxElements times that.
const MaxElements = 16384

// elementsBounded returns res with its body bounded to MaxElements array
// elements, before the SDK decodes any of it. A body that is not an event
// stream is read whole (through body, which keeps the byte bound) and
// counted; one of more is replaced by one whose reading fails saying so.
// An event stream's events are counted one by one as they are read, and
// the reading fails within the first event of more.
func (g *Guard) elementsBounded(res *http.Response, body *limited) *http.Response {
	name := g.provider + ".MaxResponseElements"
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "text/event-stream" {
		res.Body = &eventElements{limited: body, name: name, inField: true}
		return res
	}
	b, err := io.ReadAll(body)
	_ = body.Close()
	if err == nil {
		var count elements
		for _, c := range b {
			if count.add(c) > MaxElements {
				err = body.fail(&tooManyElements{max: MaxElements, name: name})
				break
			}
		}
	}
	if err != nil {
		res.Body, res.ContentLength = io.NopCloser(failing{err}), -1
		return res
	}
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return res
}

// elements counts the array elements of a JSON text given a byte at a
// time, over all its arrays at any depth, and nothing in a string. It
// reads the text as JSON's grammar allows and counts a broken text's
// elements no fewer than a decoder would see (a comma in an array is one
// more). It holds only the containers the text is in.
type elements struct {
	open    []byte // the containers the text is in, '[' or '{'
	first   bool   // just past a '[': a value here is its first element
	inText  bool
	escaped bool
	n       int
}

// add takes in c and returns the elements counted so far.
func (e *elements) add(c byte) int {
	if e.inText {
		switch {
		case e.escaped:
			e.escaped = false
		case c == '\\':
			e.escaped = true
		case c == '"':
			e.inText = false
		}
		return e.n
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		return e.n
	}
	if e.first {
		e.first = false
		if c != ']' {
			e.n++
		}
	}
	switch c {
	case '"':
		e.inText = true
	case '[':
		e.open = append(e.open, '[')
		e.first = true
	case '{':
		e.open = append(e.open, '{')
	case ']', '}':
		if len(e.open) > 0 {
			e.open = e.open[:len(e.open)-1]
		}
	case ',':
		if len(e.open) > 0 && e.open[len(e.open)-1] == '[' {
			e.n++
		}
	}
	return e.n
}

// eventElements is an event stream's body that counts the array elements
// of each event's data as it is read (the SDKs decode an event's data,
// its "data:" lines joined, as a JSON text), and fails once an event has
// more than MaxElements. The count starts over at each event, and only
// data lines are counted: another field (event:, id:, a comment) holds no
// JSON, and a quote in it must not hide the data's elements.
type eventElements struct {
	*limited
	name string

	count     elements
	field     []byte
	inField   bool // reading a line's field name, up to its colon (a stream starts there)
	data      bool // in a data line's value
	skipSpace bool // just past "data:", where one space is not the value's
	cr        bool // just past a '\r', which ends a line as "\r\n" does
	err       error
}

func (e *eventElements) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.limited.Read(p)
	for i, c := range p[:n] {
		if e.take(c) {
			// What came before the event is the SDK's; the event is not.
			e.err = e.limited.fail(&tooManyElements{max: MaxElements, name: e.name, event: true})
			return i, e.err
		}
	}
	return n, err
}

// take reads c of the stream and reports whether the event it is in has
// more than MaxElements.
func (e *eventElements) take(c byte) bool {
	if c == '\n' && e.cr {
		e.cr = false
		return false // the "\n" of a "\r\n"
	}
	e.cr = c == '\r'
	if c == '\n' || c == '\r' {
		if e.inField && len(e.field) == 0 {
			// A blank line ends the event.
			e.count = elements{open: e.count.open[:0]}
		}
		if e.data {
			// Data lines are joined by a newline, a blank in JSON.
			e.count.add('\n')
		}
		e.field, e.inField, e.data, e.skipSpace = e.field[:0], true, false, false
		return false
	}
	switch {
	case e.inField:
		if c == ':' {
			e.inField = false
			e.data = string(e.field) == "data"
			e.skipSpace = e.data
			return false
		}
		if len(e.field) < len("data")+1 {
			e.field = append(e.field, c)
		} else {
			e.field = append(e.field[:0], 0) // not a field name we read
		}
		return false
	case e.data:
		if e.skipSpace {
			e.skipSpace = false
			if c == ' ' {
				return false
			}
		}
		return e.count.add(c) > MaxElements
	}
	return false
}

// failing is a body whose reading fails with err.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// tooManyElements is the error of a body, or of a stream's event, of more
// than max array elements; name is the constant that says the bound
// (openai.MaxResponseElements).
type tooManyElements struct {
	max   int
	name  string
	event bool
}

func (e *tooManyElements) Error() string {
	what := "the response body holds"
	if e.event {
		what = "an event of the response stream holds"
	}
	return fmt.Sprintf("%s more than %d array elements (%s), more than an answer of the API holds: it is refused before it is decoded, "+
		"as each element would cost the SDK a value of its types", what, e.max, e.name)
}

// Is makes it an ErrTooLarge: the body is too large in elements.
func (e *tooManyElements) Is(target error) bool { return target == ErrTooLarge }
