package httptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Redacted replaces the credential wherever a tool's output would show it.
const Redacted = "[REDACTED]"

// excerptBytes is how much of an error body a failed result quotes.
const excerptBytes = 512

// maxHeaderBytes bounds a response's headers (net/http's default is 10 MiB,
// ten times the default body cap).
const maxHeaderBytes = 64 << 10

// maxQuotedHeader is how much of a header (the status line's reason phrase,
// the Content-Type) a result or an error message quotes.
const maxQuotedHeader = 256

// clip cuts a server's header text to maxQuotedHeader bytes of valid UTF-8.
func clip(s string) string {
	if len(s) <= maxQuotedHeader {
		return s
	}
	s = strings.ToValidUTF8(s[:maxQuotedHeader], "")
	return s + "...[cut]"
}

// redactor removes a call's secrets (the credential, the config's
// credential values: see configSecrets) from a stream of bytes. A chunk
// may end in the first bytes of a secret, so it holds back up to
// len(secret)-1 bytes until the next chunk (or the end) decides. It finds
// a secret as it is and JSON-escaped; string, and so everything Run
// returns and streams, also finds the encoded forms redact.Scrub finds.
type redactor struct {
	values  []string // the secrets, for redact.Scrub
	secrets [][]byte // their raw values and JSON-escaped forms
	hold    int
	pending []byte
	// streamed holds what write released and emit has not streamed yet:
	// the last streamHold bytes could begin an encoded form of a secret
	// (formBytes bytes for each of its bytes at most).
	streamed    []byte
	streamHold  int
	streamStuck bool // no cut was found within maxStreamHeld: the rest streams at the end
	// inForm holds the bytes an encoded form of a secret may hold: those
	// of the secrets, of hex and base64, and the escapes' '%' and '\'.
	inForm [256]bool
}

// formBytes is the most bytes redact.Scrub's longest form of a secret
// takes for one of its bytes: its hex (2 digits) in a JSON view, each
// digit a \u00XX escape (6 bytes).
const formBytes = 12

// formAlphabet are the bytes of hex, base64 (standard and URL-safe,
// padded) and the escapes that JSON and percent-encoding write.
const formAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=%\\"

// maxStreamHeld is how much text emit holds while it finds no cut that
// splits no echo of a secret, before it holds the rest of the body.
const maxStreamHeld = 64 << 10

func newRedactor(values ...string) *redactor {
	r := &redactor{}
	for _, v := range values {
		r.add(v)
	}
	return r
}

// add makes v a secret; it is called before the first write.
func (r *redactor) add(v string) {
	if v == "" || slices.Contains(r.values, v) {
		return
	}
	r.values = append(r.values, v)
	r.streamHold = max(r.streamHold, formBytes*len(v))
	for _, c := range []byte(v + formAlphabet) {
		r.inForm[c] = true
	}
	forms := []string{v}
	if b, err := json.Marshal(v); err == nil {
		esc := string(b[1 : len(b)-1])
		forms = append(forms, esc, strings.ReplaceAll(esc, "/", `\/`))
	}
	for _, f := range forms {
		if !slices.ContainsFunc(r.secrets, func(s []byte) bool { return string(s) == f }) {
			r.secrets = append(r.secrets, []byte(f))
			r.hold = max(r.hold, len(f)-1)
		}
	}
}

// next finds the earliest secret in p.
func (r *redactor) next(p []byte) (at, n int) {
	at = -1
	for _, s := range r.secrets {
		if i := bytes.Index(p, s); i >= 0 && (at < 0 || i < at || (i == at && len(s) > n)) {
			at, n = i, len(s)
		}
	}
	return at, n
}

// write adds p and returns the bytes that are now safe to release.
func (r *redactor) write(p []byte) []byte {
	if len(r.secrets) == 0 {
		return p
	}
	r.pending = append(r.pending, p...)
	var out []byte
	for {
		at, n := r.next(r.pending)
		if at < 0 {
			break
		}
		out = append(out, r.pending[:at]...)
		out = append(out, Redacted...)
		r.pending = r.pending[at+n:]
	}
	if keep := min(r.hold, len(r.pending)); len(r.pending) > keep {
		out = append(out, r.pending[:len(r.pending)-keep]...)
		r.pending = append([]byte(nil), r.pending[len(r.pending)-keep:]...)
	}
	return out
}

// flush releases what write held back.
func (r *redactor) flush() []byte {
	p := r.pending
	r.pending = nil
	return p
}

// cut releases what write held back when the text ends there because it
// was cut (a size cap), not because it ended: the held bytes that could
// begin a secret are dropped, since the rest of it will never be read to
// say whether it was one.
func (r *redactor) cut() []byte {
	p := r.flush()
	for i := range p {
		for _, s := range r.secrets {
			if p[i] == s[0] && bytes.HasPrefix(s, p[i:]) {
				return p[:i]
			}
		}
	}
	return p
}

// string redacts a whole string: the secrets as they are (at any length)
// and, by the project's one rule (redact.Scrub), JSON-escaped,
// percent-encoded, in hex and in base64.
func (r *redactor) string(s string) string {
	if len(r.values) == 0 {
		return s
	}
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, string(sec), Redacted)
	}
	return redact.Scrub(s, r.values)
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readBody reads up to limit bytes, redacting and (when stream is set)
// emitting each chunk as it arrives. It reports whether the body was longer
// than limit.
func readBody(ctx context.Context, body io.Reader, limit int64, red *redactor, stream bool) ([]byte, bool, error) {
	var out []byte
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var read int64
	truncated := false
	for {
		want := int64(len(buf))
		if rest := limit + 1 - read; rest < want {
			want = rest
		}
		n, err := body.Read(buf[:want])
		if n > 0 {
			chunk := buf[:n]
			if read+int64(n) > limit {
				chunk = chunk[:limit-read]
				truncated = true
			}
			read += int64(n)
			if safe := red.write(chunk); len(safe) > 0 {
				out = append(out, safe...)
				if stream {
					red.emit(ctx, safe)
				}
			}
		}
		if truncated {
			break
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			out = red.unfinished(out)
			if stream {
				red.drain(ctx) // what arrived before the failure, masked
			}
			return out, false, err
		}
	}
	rest := red.flush
	if truncated {
		rest = red.cut
	}
	if rest := rest(); len(rest) > 0 {
		out = append(out, rest...)
		if stream {
			red.emit(ctx, rest)
		}
	}
	if truncated {
		out = red.unfinished(out)
	}
	if stream {
		red.drain(ctx)
	}
	return out, truncated, nil
}

// unfinished drops from out, a text cut before its end (a size cap, a
// failed read), the bytes at its end that may begin an encoded form of a
// secret (percent-encoded, hex, base64, escaped), which masking cannot
// tell from the beginning alone: the cap would otherwise show all of a
// key but its last byte. It drops them from what emit holds too (the last
// streamHold bytes, which it has not streamed).
func (r *redactor) unfinished(out []byte) []byte {
	if len(r.values) == 0 {
		return out
	}
	i := len(out)
	for i > 0 && len(out)-i < r.streamHold && r.inForm[out[i-1]] {
		i--
	}
	n := len(out) - i
	r.streamed = r.streamed[:max(0, len(r.streamed)-n)]
	return out[:i]
}

// emit streams what write released, with the encoded forms of the
// secrets masked too (redact.Stream, held streamHold bytes behind: a form
// that begins before the held bytes ends within them). Past maxStreamHeld
// with no cut, the text waits for the end (drain), which the body's cap
// bounds.
func (r *redactor) emit(ctx context.Context, chunk []byte) {
	if len(r.values) == 0 {
		tool.EmitOutput(ctx, "body", chunk)
		return
	}
	if r.streamStuck {
		r.streamed = append(r.streamed, chunk...)
		return
	}
	show, held := redact.Stream{Mask: r.string, Hold: r.streamHold}.Write(r.streamed, chunk)
	if r.streamed, r.streamStuck = held, len(held) > maxStreamHeld; show != "" {
		tool.EmitOutput(ctx, "body", []byte(show))
	}
}

// drain streams what emit held back, at the end of the body.
func (r *redactor) drain(ctx context.Context) {
	if len(r.streamed) > 0 {
		tool.EmitOutput(ctx, "body", []byte(r.string(string(r.streamed))))
		r.streamed = nil
	}
}

// isJSON reports whether a Content-Type names JSON (application/json or a
// +json suffix type).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// response turns an HTTP response into a result.
func (t *Tool) response(ctx context.Context, req *http.Request, resp *http.Response, red *redactor) (*tool.Result, error) {
	ct := resp.Header.Get("Content-Type")
	res := &tool.Result{}
	res.SetMeta("http_status", resp.StatusCode)
	if ct != "" {
		res.SetMeta("content_type", clip(red.string(ct)))
	}
	if resp.StatusCode >= 400 {
		body, _, _ := readBody(ctx, resp.Body, excerptBytes, red, false)
		excerpt := oneLine(body)
		if excerpt != "" {
			res.Content = []tool.Content{tool.TextContent(excerpt)}
		}
		e := statusError(req, resp, clip(red.string(resp.Status)), excerpt)
		// A hostile server may echo the credential in its reason phrase.
		e.Message = red.string(e.Message)
		return res, e
	}
	body, truncated, err := readBody(ctx, resp.Body, t.client.o.maxBody, red, true)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded) {
			return res, &tool.Error{Code: tool.CodeTimeout, Message: fmt.Sprintf("%s %s: the body was still arriving at the call's deadline (%d bytes read)", req.Method, req.URL.Host, len(body)), Retryable: true, Err: err}
		}
		if ctx.Err() != nil {
			return res, &tool.Error{Code: tool.CodeCancelled, Message: "the call was cancelled while the body was arriving", Err: ctx.Err()}
		}
		return res, &tool.Error{Code: tool.CodeUnavailable, Message: red.string(fmt.Sprintf("%s %s: reading the body failed: %v", req.Method, req.URL.Host, err)), Retryable: true}
	}
	if truncated {
		res.SetMeta("truncated", true)
		for len(body) > 0 && !utf8.Valid(body[max(0, len(body)-3):]) {
			body = body[:len(body)-1]
		}
		res.Content = []tool.Content{tool.TextContent(fmt.Sprintf("%s\n[truncated: the response body exceeded %d bytes; the rest was not read]", body, t.client.o.maxBody))}
		return res, nil
	}
	trimmed := bytes.TrimSpace(body)
	if isJSON(ct) && len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		res.Output = json.RawMessage(trimmed)
		return res, nil
	}
	if len(body) > 0 {
		res.Content = []tool.Content{tool.TextContent(string(body))}
	}
	return res, nil
}

// oneLine makes an excerpt of an error body: valid UTF-8, whitespace
// collapsed.
func oneLine(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.Join(strings.Fields(s), " ")
}

// statusError maps a status of 400 or more to a tool error.
// status is the status line's text, redacted and clipped.
func statusError(req *http.Request, resp *http.Response, status, excerpt string) *tool.Error {
	msg := fmt.Sprintf("%s %s answered %s", req.Method, req.URL.Host, status)
	if excerpt != "" {
		msg += ": " + excerpt
	}
	var e *tool.Error
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		e = tool.NewError(tool.CodeRateLimited, msg)
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		e = tool.NewError(tool.CodeUnavailable, msg)
	case http.StatusUnauthorized, http.StatusForbidden:
		e = tool.NewError(tool.CodeUnauthorized, msg+" (the tool's credential was refused)")
	case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusGone, http.StatusUnprocessableEntity:
		e = tool.NewError(tool.CodeInvalidArguments, msg)
	default:
		e = tool.NewError(tool.CodeInternal, msg)
	}
	if e.Retryable {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			e.RetryAfter = d
		}
	}
	return e
}

// maxRetryAfter caps the wait a server's Retry-After asks for.
const maxRetryAfter = 24 * time.Hour

// retryAfter parses a Retry-After header: delay seconds or an HTTP date,
// capped at maxRetryAfter either way.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(at.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}
