package guard

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// MaxElements bounds the array elements of a response body that is not a
// stream, over all its arrays at any depth. The SDKs decode each element
// of a list of their types (choices, tool calls, output items, content
// blocks, candidates, parts) into a value of that type and its field
// metadata, 1 to 4.5 KB, be it "{}", "[]" or "null": without the bound, a
// body of 768 KiB of "{}," asked for 0.4 to 1.2 GB, and one within
// DefaultMaxBytes for tens of gigabytes. An answer of the APIs holds far
// fewer (a turn of 1024 tool calls, each with arguments, holds a few
// thousand); what it may cost the SDK is at most MaxElements times that.
const MaxElements = 16384

// elementsBounded returns res with its body read whole (through body,
// which keeps the byte bound), when it is not an event stream: a body of
// more than MaxElements array elements is replaced by one whose reading
// fails saying so, before the SDK decodes any of it.
func (g *Guard) elementsBounded(res *http.Response, body *limited) *http.Response {
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "text/event-stream" {
		res.Body = body
		return res
	}
	b, err := io.ReadAll(body)
	_ = body.Close()
	if err == nil && overElements(b, MaxElements) {
		err = body.fail(&tooManyElements{max: MaxElements, name: g.provider + ".MaxResponseElements"})
	}
	if err != nil {
		res.Body, res.ContentLength = io.NopCloser(failing{err}), -1
		return res
	}
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return res
}

// overElements reports whether the JSON text b has more than max array
// elements, counted over all its arrays at any depth. It reads b as
// JSON's grammar allows and counts a broken text's elements no fewer than
// a decoder would see (a comma in an array is one more).
func overElements(b []byte, max int) bool {
	var (
		open    []byte // the containers b is in, '[' or '{'
		first   bool   // just past a '[': a value here is its first element
		inText  bool
		escaped bool
		n       int
	)
	for _, c := range b {
		if inText {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inText = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if first {
			first = false
			if c != ']' {
				n++
			}
		}
		switch c {
		case '"':
			inText = true
		case '[':
			open = append(open, '[')
			first = true
		case '{':
			open = append(open, '{')
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case ',':
			if len(open) > 0 && open[len(open)-1] == '[' {
				n++
			}
		}
		if n > max {
			return true
		}
	}
	return false
}

// failing is a body whose reading fails with err.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// tooManyElements is the error of a body of more than max array elements;
// name is the constant that says the bound (openai.MaxResponseElements).
type tooManyElements struct {
	max  int
	name string
}

func (e *tooManyElements) Error() string {
	return fmt.Sprintf("the response body holds more than %d array elements (%s), more than an answer of the API holds: it is refused before it is decoded, "+
		"as each element would cost the SDK a value of its types", e.max, e.name)
}

// Is makes it an ErrTooLarge: the body is too large in elements.
func (e *tooManyElements) Is(target error) bool { return target == ErrTooLarge }
