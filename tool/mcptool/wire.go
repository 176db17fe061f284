package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/internal/origin"
)

// The SDK's mcp.Tool (v1.8.0) does not decode a tool's "execution" object
// (MCP 2025-11-25), so the client cannot see from the listing that a tool
// must be called as a task. taskWatch reads that one field from the raw
// tools/list responses on their way to the SDK: below the session, at the
// connection for stdio and in-memory transports and at the HTTP round
// trip for streamable HTTP (whose connection cannot be wrapped without
// hiding the SDK's session updates from it). Nothing is changed on the
// wire; a response is recorded before the SDK decodes it, so the listing
// that yields a tool can already say how it runs.

// maxListBody bounds how much of one tools/list response is kept for
// reading execution (the SDK's own default event limit).
const maxListBody = 16 << 20

// taskWatch records each listed tool's execution.taskSupport by remote
// name. A later listing replaces what an earlier one said. Names over
// maxName (Tools leaves their tools out) are not recorded, and the record
// starts afresh when it holds maxListing names: Tools reads a page's
// entries before it asks for the next page, and a server could otherwise
// grow it with new names at every listing.
type taskWatch struct {
	mu   sync.Mutex
	task map[string]string // remote name -> taskSupport ("" when absent)
}

// taskSupport returns what the last listing said about the tool remote.
func (w *taskWatch) taskSupport(remote string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.task[remote]
}

// note reads a tools/list result. Anything it cannot read is left to the
// SDK, which reports malformed results itself. It reports false when the
// result lists more than maxListing tools: the SDK must not decode it.
func (w *taskWatch) note(result json.RawMessage) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.task == nil || len(w.task) >= maxListing {
		w.task = map[string]string{}
	}
	return eachListed(result, func(raw json.RawMessage) {
		var t struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Name == "" || len(t.Name) > maxName {
			return
		}
		var e struct {
			TaskSupport string `json:"taskSupport"`
		}
		_ = json.Unmarshal(t.Execution, &e) // absent or malformed: no task support
		w.task[t.Name] = e.TaskSupport
	})
}

// eachListed calls fn with each entry of a tools/list result's tools
// array (of each member a decoder takes for it: encoding/json matches
// "TOOLS" too, and the SDK's decoder keeps the last of repeated ones),
// one entry at a time. It reports false, and stops, at an array of more
// than maxListing entries. The SDK decodes every entry of a page into an
// mcp.Tool and re-encodes and decodes its input schema (for x-mcp-header
// annotations), some 32 KB allocated for each, whatever its size: a page
// of a million "{}" entries (3 MiB) had the client allocate 35 GB and
// spin for half a minute that no deadline ends, before Tools counted one.
// Tools refuses a listing of more than maxListing tools anyway.
func eachListed(result []byte, fn func(json.RawMessage)) bool {
	d := json.NewDecoder(bytes.NewReader(result))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return true
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return true
		}
		var value json.RawMessage
		if d.Decode(&value) != nil {
			return true
		}
		if key, _ := tok.(string); !strings.EqualFold(key, "tools") {
			continue
		}
		// Any value is read past, an object too: the SDK's decoder may
		// go on to a later member of the same name after a type error.
		if !eachEntry(value, fn) {
			return false
		}
	}
	return true
}

// eachEntry calls fn with each entry of the JSON array value (nothing if
// it is not an array); it reports false, and stops, past maxListing.
func eachEntry(value json.RawMessage, fn func(json.RawMessage)) bool {
	d := json.NewDecoder(bytes.NewReader(value))
	if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
		return true
	}
	for n := 1; d.More(); n++ {
		if n > maxListing {
			return false
		}
		var raw json.RawMessage
		if d.Decode(&raw) != nil {
			return true
		}
		fn(raw)
	}
	return true
}

// errListTooLong answers, in place of the server's answer, a tools/list
// whose page lists more than maxListing tools.
var errListTooLong = fmt.Errorf("mcptool: the server's tools/list page lists more than %d tools, more than a listing reads: the page is not read", maxListing)

// noteResponse records msg if it answers one of the tools/list requests in
// pending (and forgets that request). It reports false when msg, whatever
// it answers, lists more than maxListing tools: which answer the SDK
// matches to a listing is its own business (the first of that id from
// any stream of the connection), so every answer is bounded, not only
// the one this package expects.
func (w *taskWatch) noteResponse(msg jsonrpc.Message, pending *sync.Map) bool {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil {
		return true // the SDK does not decode an error answer's result
	}
	if _, ok := pending.LoadAndDelete(r.ID); ok {
		return w.note(r.Result)
	}
	return eachListed(r.Result, func(json.RawMessage) {})
}

// watch returns t with its tools/list responses recorded into w. Over
// streamable HTTP, the answers to the server's requests in flight are
// bounded (maxAnswersInFlight) and ended when stop is done.
func (w *taskWatch) watch(t mcp.Transport, stop context.Context) mcp.Transport {
	if st, ok := t.(*mcp.StreamableClientTransport); ok {
		cp := *st
		hc := http.DefaultClient
		if st.HTTPClient != nil {
			hc = st.HTTPClient
		}
		hcp := *hc
		next := hcp.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		hcp.Transport = &watchRoundTripper{next: next, w: w, answers: make(chan struct{}, maxAnswersInFlight), stop: stop}
		if hcp.CheckRedirect == nil {
			hcp.CheckRedirect = sameOrigin
		}
		cp.HTTPClient = &hcp
		return &cp
	}
	return &watchTransport{Transport: t, w: w, stop: stop}
}

// sameOrigin follows a redirect only within the origin (scheme, host and
// port) of the first request, and at most 10: the HTTP client's transport
// may add a credential to every request it sends (an authenticating
// RoundTripper), which net/http cannot strip when the server sends the
// client elsewhere.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if from, to := origin.Of(via[0].URL), origin.Of(req.URL); from != to {
		return fmt.Errorf("the MCP server redirected to another origin (%s, from %s): not followed, as the client's credentials would go along", to, from)
	}
	return nil
}

// watchTransport records the tools/list responses of a message-level
// connection (stdio, in-memory, any custom transport), and writes the
// client's answers to the server's requests through an answerQueue.
type watchTransport struct {
	mcp.Transport
	w    *taskWatch
	stop context.Context // done when the connection is closed
}

func (t *watchTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	q := &answerQueue{conn: conn, stop: t.stop, ready: make(chan struct{}, 1)}
	go q.run()
	return &watchConn{Connection: conn, w: t.w, answers: q}, nil
}

type watchConn struct {
	mcp.Connection
	w       *taskWatch
	pending sync.Map // jsonrpc.ID of a tools/list request in flight
	answers *answerQueue
}

// Write writes msg, or queues it when it answers one of the server's
// requests (answerQueue).
func (c *watchConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "tools/list" && r.IsCall() {
		c.pending.Store(r.ID, struct{}{})
	}
	if _, answer := msg.(*jsonrpc.Response); answer {
		c.answers.put(msg)
		return nil
	}
	return c.Connection.Write(ctx, msg)
}

// maxQueuedAnswers bounds, in bytes of JSON, the answers to the server's
// requests that wait to be written on a message-level connection; one
// answer is taken whatever its size.
const maxQueuedAnswers = 1 << 20

// answerQueue writes the client's answers to the server's requests (ping,
// roots/list, sampling, elicitation) on one goroutine, in order. The SDK
// answers each request on a goroutine of its own, which wrote the answer
// itself: a stdio server that sends pings and reads none of the answers
// fills the pipe to its stdin (64 KiB), and every later answer's
// goroutine waited to write for as long as the session lived (10,000
// pings held some 8,300 goroutines), and closing the session waited for
// them, for ever. Queued, an answer holds only its bytes, and past
// maxQueuedAnswers of them an answer is not sent. Either way the SDK is
// told it was written: it takes a failed write for a broken connection
// and ends the session, which the server would then end at will.
type answerQueue struct {
	conn  mcp.Connection
	stop  context.Context // done when the connection is closed: the queue ends
	ready chan struct{}   // an answer was queued

	mu    sync.Mutex
	queue []jsonrpc.Message
	sizes []int
	bytes int // of the answers queued and the one being written
}

// put queues msg, unless maxQueuedAnswers bytes wait already or the
// connection is closed.
func (q *answerQueue) put(msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return // the SDK's writer would fail on it too
	}
	q.mu.Lock()
	if q.stop.Err() != nil || (q.bytes > 0 && q.bytes+len(data) > maxQueuedAnswers) {
		q.mu.Unlock()
		return
	}
	q.queue = append(q.queue, msg)
	q.sizes = append(q.sizes, len(data))
	q.bytes += len(data)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// run writes the queued answers until the connection is closed. A write
// the server does not take ends as the connection closes under it.
func (q *answerQueue) run() {
	for {
		select {
		case <-q.ready:
		case <-q.stop.Done():
			return
		}
		for {
			q.mu.Lock()
			if len(q.queue) == 0 {
				q.queue, q.sizes = nil, nil // a burst's arrays go
				q.mu.Unlock()
				break
			}
			msg, size := q.queue[0], q.sizes[0]
			q.queue[0] = nil
			q.queue, q.sizes = q.queue[1:], q.sizes[1:]
			q.mu.Unlock()
			_ = q.conn.Write(q.stop, msg)
			q.mu.Lock()
			q.bytes -= size
			q.mu.Unlock()
			if q.stop.Err() != nil {
				return
			}
		}
	}
}

func (c *watchConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	for err == nil {
		// A message over maxMessageElements (or maxMessageValues) is
		// not handed to the SDK to decode: an answer becomes an error
		// answer, and a request or notification of the server is
		// dropped.
		if r, ok := msg.(*jsonrpc.Response); ok && !countElements(r.Result) {
			if r.ID.IsValid() {
				c.pending.Delete(r.ID)
			}
			return &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: errTooManyElements.Error()}}, nil
		}
		if r, ok := msg.(*jsonrpc.Request); !ok || countElements(r.Params) {
			break
		}
		msg, err = c.Connection.Read(ctx)
	}
	if err == nil && !c.w.noteResponse(msg, &c.pending) {
		// The SDK is given an error answer in its place.
		msg = &jsonrpc.Response{ID: msg.(*jsonrpc.Response).ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: errListTooLong.Error()}}
	}
	return msg, err
}

// watchRoundTripper records the responses to tools/list requests sent
// over streamable HTTP, as JSON or as an event stream, in whichever 2xx
// body of the connection they arrive (refusing any answer that lists more
// than maxListing tools, in any of them), bounds every
// response body that is not an event stream (maxHTTPBody), and bounds the
// client's answers to the server's requests in flight
// (maxAnswersInFlight).
type watchRoundTripper struct {
	next    http.RoundTripper
	w       *taskWatch
	answers chan struct{}   // a place for each answer in flight
	stop    context.Context // done when the connection is closed: answers still in flight end
	pending sync.Map        // jsonrpc.ID of a tools/list request in flight
}

// maxAnswersInFlight bounds the answers to the server's own requests
// (ping, roots/list, sampling, elicitation) that one connection has in
// flight over HTTP. The SDK answers each request on a goroutine of its
// own, with a POST of its own and no deadline, so a server that sends
// pings and never takes the answers held a connection and goroutines for
// each ping for as long as the session lived; and closing the session
// waits for every answer in flight, so Close never returned. A server
// asks a few things at once; an answer past the bound is not sent (the
// SDK drops it, and the session goes on), and closing the connection ends
// those in flight.
const maxAnswersInFlight = 16

// errTooManyAnswers refuses an answer past maxAnswersInFlight.
var errTooManyAnswers = fmt.Errorf("mcptool: the MCP server has not taken %d answers of this client to its own requests: this answer is not sent", maxAnswersInFlight)

func (rt *watchRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	msg := posted(req)
	var release func()
	if _, answer := msg.(*jsonrpc.Response); answer {
		select {
		case rt.answers <- struct{}{}:
		default:
			return nil, errTooManyAnswers
		}
		ctx, cancel := context.WithCancel(req.Context())
		unhook := context.AfterFunc(rt.stop, cancel)
		req = req.WithContext(ctx)
		release = sync.OnceFunc(func() { unhook(); cancel(); <-rt.answers })
	}
	if id, ok := toolsListID(msg); ok {
		rt.pending.Store(id, struct{}{})
	}
	resp, err := rt.next.RoundTrip(req)
	if release != nil {
		if err != nil || resp.Body == nil {
			release()
		} else {
			// The SDK closes an answer's response at once.
			resp.Body = &onClose{ReadCloser: resp.Body, fn: release}
		}
	}
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/event-stream" {
		// The SDK reads a JSON body, and any error body, whole with
		// io.ReadAll; it bounds only the events of a stream.
		resp.Body = &boundedBody{ReadCloser: resp.Body}
	} else {
		resp.Body = &streamBound{ReadCloser: resp.Body}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, nil // the SDK reads only an error answer from it
	}
	// Every body the SDK may take an answer from is watched, not only the
	// listing's own: the SDK matches an answer to its call by id, from any
	// stream of the connection (the standalone GET, another call's), and
	// takes any 2xx status.
	switch mt {
	case "application/json":
		resp.Body = &jsonWatch{ReadCloser: resp.Body, w: rt.w, pending: &rt.pending}
	case "text/event-stream":
		resp.Body = &sseWatch{ReadCloser: resp.Body, w: rt.w, pending: &rt.pending}
	}
	return resp, nil
}

// maxHTTPBody bounds an HTTP response body that is not an event stream:
// the SDK's own bound on one event of a stream, and on a stdio line.
const maxHTTPBody = mcp.DefaultMaxEventSize

// errBodyTooLarge fails the read of a body past maxHTTPBody.
var errBodyTooLarge = fmt.Errorf("the MCP server's HTTP response body exceeds %d bytes", maxHTTPBody)

// boundedBody fails once more than maxHTTPBody bytes are read: a hostile
// or broken server's endless body ends the connection instead of filling
// memory. It fails too once the body holds more than maxMessageElements
// (or maxMessageValues).
type boundedBody struct {
	io.ReadCloser
	read     int64
	elements elementCount
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if rest := maxHTTPBody + 1 - b.read; int64(len(p)) > rest {
		p = p[:rest] // one byte past the bound tells a longer body
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.read > maxHTTPBody {
		return 0, errBodyTooLarge
	}
	if !b.elements.add(p[:n]) {
		return 0, errTooManyElements
	}
	return n, err
}

// maxMessageElements bounds the JSON objects and arrays of one message of
// the server (a stdio line, an HTTP body, an event of a stream). The SDK
// decodes a result's structuredContent and _meta, and each listed tool's
// schemas, as encoding/json decodes any JSON (map[string]any, []any):
// some 160 bytes allocated for each {} and 300 for each [], so a 3 MiB
// structuredContent of [] elements cost 330 MB, and a 16 MiB message
// would cost 1.7 GB, before anything of this package saw it. Real
// results and listings hold a few thousand.
const maxMessageElements = 1 << 18

// maxMessageValues bounds the values of one message of the server,
// counted outside its strings as its commas (each value of an array or
// object but the first follows one) and its colons (a member of an
// object counts twice, its key and its value). Decoded as any, a number,
// string, true or null costs the SDK 110 to 170 bytes, a member of an
// object some 430 (its map entry and key): 3 MiB of "1," elements
// allocated 175 MB (56 times their size, as much as "{}" elements), 3 MiB
// of "k":0 members 150 to 180 MB, 16 MiB some 900 MB, with no object or
// array to count; at the bound, 60 to 115 MB, as much as the objects and
// arrays at theirs. Half a million values are 1 MiB at least, the
// executor's default output cap (executor.DefaultMaxOutputBytes); a page
// of 1,000 tools of 40 described properties each holds some 210,000.
const maxMessageValues = 1 << 19

// errTooManyElements refuses a message past maxMessageElements or
// maxMessageValues.
var errTooManyElements = fmt.Errorf("mcptool: the MCP server's message holds more than %d JSON objects and arrays, or more than %d values (a member of an object counting 2): it is not read", maxMessageElements, maxMessageValues)

// elementCount counts the JSON objects and arrays of a text as it passes,
// and its values (maxMessageValues), outside its strings. A raw newline
// ends a string: valid JSON has none inside one, and an event stream's
// lines (an "event:" or comment line with a quote in it) must not hide
// the next line's elements.
type elementCount struct {
	n        int
	values   int // commas and colons
	inString bool
	escaped  bool
}

// add counts p; it reports false once the text holds more than
// maxMessageElements, or more than maxMessageValues values.
func (c *elementCount) add(p []byte) bool {
	for _, b := range p {
		switch {
		case b == '\n':
			c.inString, c.escaped = false, false
		case c.escaped:
			c.escaped = false
		case c.inString:
			if b == '\\' {
				c.escaped = true
			} else if b == '"' {
				c.inString = false
			}
		case b == '"':
			c.inString = true
		case b == '{' || b == '[':
			c.n++
		case b == ',' || b == ':':
			c.values++
		}
	}
	return c.n <= maxMessageElements && c.values <= maxMessageValues
}

// countElements reports whether raw holds at most maxMessageElements, and
// at most maxMessageValues values.
func countElements(raw []byte) bool {
	var c elementCount
	return c.add(raw)
}

// streamBound fails an event stream at an event of more than
// maxMessageElements (or maxMessageValues), before the SDK, which reads an event whole before
// decoding it, decodes any of it: the chunk that passes the bound is not
// handed on.
type streamBound struct {
	io.ReadCloser
	elements  elementCount
	lineEmpty bool // the line read so far is empty (or "\r")
	failed    bool
}

func (s *streamBound) Read(p []byte) (int, error) {
	if s.failed {
		return 0, errTooManyElements
	}
	n, err := s.ReadCloser.Read(p)
	start := 0
	for i, b := range p[:n] {
		if b != '\n' {
			if b != '\r' {
				s.lineEmpty = false
			}
			continue
		}
		if s.lineEmpty { // a blank line ends the event
			if !s.elements.add(p[start:i]) {
				s.failed = true
				return 0, errTooManyElements
			}
			s.elements, start = elementCount{}, i+1
		}
		s.lineEmpty = true
	}
	if !s.elements.add(p[start:n]) {
		s.failed = true
		return 0, errTooManyElements
	}
	return n, err
}

// posted returns the JSON-RPC message req posts, or nil. The body is read
// through GetBody, so req is left as is.
func posted(req *http.Request) jsonrpc.Message {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxListBody))
	if err != nil {
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil
	}
	return msg
}

// toolsListID returns the id of msg if it is a tools/list request.
func toolsListID(msg jsonrpc.Message) (jsonrpc.ID, bool) {
	r, ok := msg.(*jsonrpc.Request)
	if !ok || r.Method != "tools/list" || !r.IsCall() {
		return jsonrpc.ID{}, false
	}
	return r.ID, true
}

// onClose is a response body that calls fn when it is closed.
type onClose struct {
	io.ReadCloser
	fn func()
}

func (b *onClose) Close() error {
	defer b.fn()
	return b.ReadCloser.Close()
}

// jsonWatch reads an application/json response as it passes and records it
// when it ends (the SDK reads such a body to its end before decoding it).
type jsonWatch struct {
	io.ReadCloser
	w       *taskWatch
	pending *sync.Map
	buf     bytes.Buffer
}

func (b *jsonWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.buf.Len()+n <= maxListBody {
		b.buf.Write(p[:n])
	}
	if err == io.EOF {
		listed := true
		if msg, derr := jsonrpc.DecodeMessage(b.buf.Bytes()); derr == nil {
			listed = b.w.noteResponse(msg, b.pending)
		}
		b.buf = bytes.Buffer{}
		if !listed {
			// The SDK reads the body whole (io.ReadAll) before it
			// decodes it: a failed read leaves it undecoded.
			return 0, errListTooLong
		}
	}
	return n, err
}

// sseWatch reads a text/event-stream response as it passes, line by line,
// and records each event's data when the event ends. It sees an event's
// end before the SDK can, which reads the same bytes after it.
type sseWatch struct {
	io.ReadCloser
	w       *taskWatch
	pending *sync.Map
	line    []byte
	data    []byte
	hasData bool
	name    string // the event's name, if it has one
	tooLong bool   // an event listed more than maxListing tools
}

func (s *sseWatch) Read(p []byte) (int, error) {
	if s.tooLong {
		return 0, errListTooLong
	}
	n, err := s.ReadCloser.Read(p)
	for _, c := range p[:n] {
		if c != '\n' {
			if len(s.line) < maxListBody {
				s.line = append(s.line, c)
			}
			continue
		}
		s.endLine(bytes.TrimRight(s.line, "\r\n"))
		s.line = s.line[:0]
	}
	if err == io.EOF {
		s.endLine(nil) // a stream may end without the event's blank line
	}
	if s.tooLong {
		// The chunk that ends the event is not handed on: the SDK would
		// decode the event before it saw the error.
		return 0, errListTooLong
	}
	return n, err
}

// endLine reads a line as the SDK's scanner does (scanEventsLimited): its
// end's CRs and LFs trimmed, a field's value trimmed of spaces, and an
// event named other than "message" skipped; a watch that read otherwise
// would see another event than the SDK decodes.
func (s *sseWatch) endLine(line []byte) {
	if len(line) == 0 {
		if s.hasData && (s.name == "" || s.name == "message") {
			if msg, err := jsonrpc.DecodeMessage(s.data); err == nil && !s.w.noteResponse(msg, s.pending) {
				s.tooLong = true
			}
		}
		s.data, s.hasData, s.name = s.data[:0], false, ""
		return
	}
	key, v, _ := bytes.Cut(line, []byte(":"))
	if string(key) == "event" {
		s.name = string(bytes.TrimSpace(v))
		return
	}
	if string(key) != "data" {
		return // id, retry, comments
	}
	v = bytes.TrimSpace(v)
	if s.hasData {
		s.data = append(s.data, '\n')
	}
	if len(s.data)+len(v) <= maxListBody {
		s.data = append(s.data, v...)
	}
	s.hasData = true
}
