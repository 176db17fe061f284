package guard

import (
	"fmt"
	"net/http"
)

// MaxElements bounds the array elements of a response body, and of each
// event of a stream, over all its arrays at any depth. The SDKs decode
// each element of a list of their types (choices, tool calls, output
// items, content blocks, candidates, parts) into a value of that type and
// its field metadata, 1 to 4.5 KB, be it "{}", "[]" or "null": without the
// bound, a body (or a stream's event) of 768 KiB of "{}," asked for 0.1 to
// 1.2 GB, and one within DefaultMaxBytes for tens of gigabytes. An answer
// of the APIs holds far fewer (a turn of 1024 tool calls, each with
// arguments, holds a few thousand); what it may cost the SDK is at most
// MaxElements times that. A tool's arguments the model wrote are not
// counted (freeMembers).
const MaxElements = 16384

// MaxMembers bounds the object members of a response body, and of each
// event of a stream, over all its objects at any depth, as MaxElements
// does their array elements. The SDKs keep each member of an object that
// their type does not name (the Stainless SDKs in ExtraFields, with its
// field metadata; the genai SDK decodes through a map of every member),
// about 500 bytes for a member "k":0 of 10 bytes: without the bound,
// 100,000 unknown keys on an OpenAI message, a body of 930 KB, asked for
// 57 MB, and a body within DefaultMaxBytes for 2 GB. An answer of the APIs
// holds far fewer (a turn of 1024 tool calls holds about 8000, their
// arguments' members included).
const MaxMembers = 16384

// A bound on a count of a body's values: what it counts, its value and
// the name of the adapters' constant that says it.
type bound struct {
	what     string // "array elements"
	max      int
	constant string // "MaxResponseElements"
	cost     string // what each would cost the SDK
}

var (
	arrayElements = &bound{"array elements", MaxElements, "MaxResponseElements", "each element would cost the SDK a value of its types"}
	objectMembers = &bound{"object members", MaxMembers, "MaxResponseMembers", "each member would cost the SDK a field of its own (an unknown one is kept)"}
	freeValues    = &bound{"array elements and object members in a tool's arguments", MaxFreeValues, "MaxResponseArgsValues", "each would cost the SDK a map or a slice"}
)

// elementsBounded returns res with its body bounded to MaxElements array
// elements and MaxMembers object members, counted as the body is read,
// before the SDK decodes what they are in: the SDKs read a whole JSON
// value, or a whole event, before they decode it. The body is counted
// both ways an SDK may read it, whatever its Content-Type says: as a JSON
// value (the genai SDK decodes an answer labelled text/event-stream as
// one), and as an event stream (the Stainless SDKs read a stream's answer
// as one, whatever its label).
func (g *Guard) elementsBounded(res *http.Response, body *limited) *http.Response {
	res.Body = newBodyElements(body, g.provider, freeMembers[g.provider])
	return res
}

// MaxFreeValues bounds the array elements and object members, together,
// of the tool arguments a Gemini answer, or a stream's event, holds (its
// functionCall "args"), which MaxElements and MaxMembers do not count.
// The SDK decodes them as encoding/json decodes any JSON (a map or a
// slice each), about 320 bytes for a "{}" of 3: MaxFreeValues of them
// cost about as much as MaxElements values of the SDK's types (80 MB),
// and a table of 20,000 rows of a few columns written to a tool, a real
// answer, holds about 140,000.
const MaxFreeValues = 262144

// freeMember names a member whose object or array value is JSON the model
// wrote for a tool, which the SDK keeps without a value of its types per
// element or member, and bounds what it holds.
type freeMember struct {
	name string
	max  int // of its elements and members, together; 0 for no bound but the bytes
}

// freeMembers are the adapters' free members: Anthropic's tool_use
// "input" (the SDK keeps it as a json.RawMessage, a copy of its bytes, so
// only the byte bound applies) and Gemini's functionCall "args" (a
// map[string]any, bounded by MaxFreeValues). A real answer holds large
// ones (a table of 20,000 rows written to a tool), which MaxElements and
// MaxMembers refused. OpenAI's tool arguments are a JSON string, which
// holds no element.
var freeMembers = map[string]freeMember{
	"anthropic": {name: "input"},
	"gemini":    {name: "args", max: MaxFreeValues},
}

// bodyElements is a response body that fails once what it has read holds
// more than MaxElements array elements or MaxMembers object members, as a
// JSON value or in an event.
type bodyElements struct {
	*limited
	provider string // the adapter's package name, for the constant an error names

	value firstValue
	// The stream's events as each reader cuts them: the event stream
	// standard (lines end in LF, CRLF or CR), the Stainless SDKs (lines
	// end in LF alone, a CR before it dropped) and the genai SDK (pieces
	// end in "\n\n" or "\r\n\r\n", all after the first colon is data).
	events, lines events
	pieces        pieces
	err           error
}

// newBodyElements returns body counted as a JSON value and as an event
// stream read each way an SDK reads one; free is the adapter's free
// member (freeMembers).
func newBodyElements(body *limited, provider string, free freeMember) *bodyElements {
	return &bodyElements{limited: body, provider: provider,
		value:  firstValue{elements: elements{free: free}},
		events: events{inField: true, count: elements{free: free}},
		lines:  events{inField: true, lf: true, count: elements{free: free}},
		pieces: pieces{count: elements{free: free}}}
}

func (b *bodyElements) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.limited.Read(p)
	for i, c := range p[:n] {
		inValue, inEvent := b.value.take(c), b.events.take(c)
		if inLine := b.lines.take(c); inEvent == nil {
			inEvent = inLine
		}
		if inPiece := b.pieces.take(c); inEvent == nil {
			inEvent = inPiece
		}
		if inValue != nil || inEvent != nil {
			// What came before is the SDK's; what is over is not.
			over := &tooManyValues{bound: inValue, provider: b.provider}
			if inValue == nil {
				over.bound, over.event = inEvent, true
			}
			b.err = b.limited.fail(over)
			return i, b.err
		}
	}
	return n, err
}

// elements counts the array elements and the object members of a JSON
// text given a byte at a time, over all its arrays and objects at any
// depth, and nothing in a string. It reads the text as JSON's grammar
// allows and counts a broken text's elements and members no fewer than a
// decoder would see (a comma in an array or an object is one more). It
// holds only the containers the text is in.
type elements struct {
	open        []byte // the containers the text is in, '[' or '{'
	first       bool   // just past a '[': a value here is its first element
	firstMember bool   // just past a '{': a key here is its first member
	inText      bool
	escaped     bool
	n           int // array elements
	members     int // object members

	// free names the member whose object or array value is counted in
	// freeN and not in n or members (freeMembers); its name is "" for
	// none. A key is compared as it is spelt: one with an escape is not
	// free, which counts more, never fewer.
	free      freeMember
	freeN     int    // elements and members in free values
	wantKey   bool   // just past '{' or an object's ',': a string here is a key
	inKey     bool   // the string being read is a key
	key       []byte // the key read so far, up to len(free.name)+1 bytes
	keyBroken bool   // the key holds an escape
	freeValue bool   // the last key was free: the value after its ':' is free
	freeDepth int    // the depth of open of the free value the text is in, 0 for none
}

// count counts one more array element (array) or object member in the
// container the text is in.
func (e *elements) count(array bool) {
	switch {
	case e.freeDepth != 0 && len(e.open) >= e.freeDepth:
		e.freeN++
	case array:
		e.n++
	default:
		e.members++
	}
}

// add takes in c.
func (e *elements) add(c byte) {
	if e.inText {
		switch {
		case e.escaped:
			e.escaped = false
		case c == '\\':
			e.escaped = true
			e.keyBroken = true
		case c == '"':
			e.inText = false
			if e.inKey {
				e.inKey = false
				e.freeValue = e.free.name != "" && !e.keyBroken && string(e.key) == e.free.name
			}
		default:
			if e.inKey && len(e.key) <= len(e.free.name) {
				e.key = append(e.key, c)
			}
		}
		return
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		return
	}
	if e.first {
		e.first = false
		if c != ']' {
			e.count(true)
		}
	}
	if e.firstMember {
		e.firstMember = false
		if c != '}' {
			e.count(false)
		}
	}
	wantKey := e.wantKey
	e.wantKey = false
	if c != ':' && c != '"' {
		freeValue := e.freeValue
		e.freeValue = false
		if freeValue && (c == '{' || c == '[') && e.freeDepth == 0 {
			e.freeDepth = len(e.open) + 1
		}
	}
	switch c {
	case '"':
		e.inText = true
		if wantKey && e.free.name != "" {
			e.inKey, e.key, e.keyBroken = true, e.key[:0], false
		} else {
			e.freeValue = false
		}
	case '[':
		e.open = append(e.open, '[')
		e.first = true
	case '{':
		e.open = append(e.open, '{')
		e.firstMember = true
		e.wantKey = true
	case ']', '}':
		if len(e.open) > 0 {
			e.open = e.open[:len(e.open)-1]
		}
		if len(e.open) < e.freeDepth {
			e.freeDepth = 0
		}
	case ',':
		if len(e.open) > 0 {
			top := e.open[len(e.open)-1]
			e.wantKey = top == '{'
			e.count(top == '[')
		}
	}
}

// over is the bound the text counted so far is over, or nil.
func (e *elements) over() *bound {
	switch {
	case e.n > MaxElements:
		return arrayElements
	case e.members > MaxMembers:
		return objectMembers
	case e.free.max > 0 && e.freeN > e.free.max:
		return freeValues
	}
	return nil
}

// firstValue counts the elements and members of the body's first JSON
// value, the one a decoder reads (what follows it is an error, not
// decoded); a body that starts with no object or array (an event
// stream's "data:") has none.
type firstValue struct {
	elements
	state int // 0 before the value, 1 in it, 2 past it or none
}

// take reads c of the body and returns the bound the first value is
// over, or nil.
func (f *firstValue) take(c byte) *bound {
	switch f.state {
	case 0:
		switch c {
		case ' ', '\t', '\n', '\r':
			return nil
		case '{', '[':
			f.state = 1
		default:
			f.state = 2
			return nil
		}
	case 2:
		return nil
	}
	f.add(c)
	if len(f.open) == 0 {
		f.state = 2
	}
	return f.over()
}

// events counts the array elements and object members of each event of
// an event stream, in its data (its "data:" lines joined, which the SDKs
// decode as a JSON text). The count starts over at each event, and only
// data lines are counted: another field (event:, id:, a comment) holds no
// JSON, and a quote in it must not hide the data's elements.
type events struct {
	count     elements
	field     []byte
	inField   bool // reading a line's field name, up to its colon (a stream starts there)
	data      bool // in a data line's value
	skipSpace bool // just past "data:", where one space is not the value's
	cr        bool // just past a '\r', which ends a line as "\r\n" does
	lf        bool // lines end in LF alone, as the Stainless SDKs' bufio.Scanner reads them: a lone CR is in the line
}

// pieces counts the array elements and object members of each piece of
// an event stream as the genai SDK reads it: it cuts the stream at
// "\n\n" (or at "\r\n\r\n" when no "\n\n" is at hand) and decodes as JSON
// all that follows the first colon of a piece that begins "data", other
// lines too. A piece is taken to end at "\r\n\r\n" only once its data's
// value is whole: the SDK may read on to a later "\n\n", so a value
// still open is counted on, which counts more, never fewer.
type pieces struct {
	count  elements
	prefix []byte // the piece up to its first colon, up to len("data")+1 bytes
	data   bool   // past "data:"
	inData bool   // the data holds a value's first byte
	last   [3]byte
}

// take reads c of the stream and returns the bound the piece it is in
// is over, or nil.
func (p *pieces) take(c byte) *bound {
	last := p.last
	p.last = [3]byte{last[1], last[2], c}
	if c == '\n' && (last[2] == '\n' || last == [3]byte{'\r', '\n', '\r'} && p.whole()) {
		p.count = elements{open: p.count.open[:0], free: p.count.free, key: p.count.key[:0]}
		p.prefix, p.data, p.inData, p.last = p.prefix[:0], false, false, [3]byte{}
		return nil
	}
	if !p.data {
		switch {
		case c == ':' && string(p.prefix) == "data":
			p.data = true
		case len(p.prefix) < len("data")+1:
			p.prefix = append(p.prefix, c)
		}
		return nil
	}
	switch c {
	case ' ', '\t', '\n', '\r':
	default:
		p.inData = true
	}
	p.count.add(c)
	return p.count.over()
}

// whole reports whether the piece's data is a whole value, or there is no
// data: what follows a "\r\n\r\n" is another piece.
func (p *pieces) whole() bool {
	if !p.data {
		return true
	}
	return p.inData && len(p.count.open) == 0 && !p.count.inText
}

// take reads c of the stream and returns the bound the event it is in is
// over, or nil.
func (e *events) take(c byte) *bound {
	if !e.lf {
		if c == '\n' && e.cr {
			e.cr = false
			return nil // the "\n" of a "\r\n"
		}
		e.cr = c == '\r'
	}
	if c == '\n' || c == '\r' && !e.lf {
		// With lf, a line of a lone CR is blank: the CR before an LF is
		// dropped.
		if e.inField && (len(e.field) == 0 || e.lf && string(e.field) == "\r") {
			// A blank line ends the event.
			e.count = elements{open: e.count.open[:0], free: e.count.free, key: e.count.key[:0]}
		}
		if e.data {
			// Data lines are joined by a newline, a blank in JSON.
			e.count.add('\n')
		}
		e.field, e.inField, e.data, e.skipSpace = e.field[:0], true, false, false
		return nil
	}
	switch {
	case e.inField:
		if c == ':' {
			e.inField = false
			e.data = string(e.field) == "data"
			e.skipSpace = e.data
			return nil
		}
		if len(e.field) < len("data")+1 {
			e.field = append(e.field, c)
		} else {
			e.field = append(e.field[:0], 0) // not a field name we read
		}
		return nil
	case e.data:
		if e.skipSpace {
			e.skipSpace = false
			if c == ' ' {
				return nil
			}
		}
		e.count.add(c)
		return e.count.over()
	}
	return nil
}

// tooManyValues is the error of a body, or of a stream's event, over a
// bound of its array elements or object members; provider names the
// adapter whose constant says the bound (openai.MaxResponseElements).
type tooManyValues struct {
	bound    *bound
	provider string
	event    bool
}

func (e *tooManyValues) Error() string {
	what := "the response body holds"
	if e.event {
		what = "an event of the response stream holds"
	}
	return fmt.Sprintf("%s more than %d %s (%s.%s), more than an answer of the API holds: it is refused before it is decoded, as %s",
		what, e.bound.max, e.bound.what, e.provider, e.bound.constant, e.bound.cost)
}

// Is makes it an ErrTooLarge: the body is too large in elements or
// members.
func (e *tooManyValues) Is(target error) bool { return target == ErrTooLarge }
