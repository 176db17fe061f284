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
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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

// redactor removes the credential from a stream of bytes. A chunk may end
// in the first bytes of the secret, so it holds back up to len(secret)-1
// bytes until the next chunk (or the end) decides.
type redactor struct {
	secrets [][]byte // the raw value and its JSON-escaped forms, longest first
	hold    int
	pending []byte
}

func newRedactor(secret string) *redactor {
	r := &redactor{}
	if secret == "" {
		return r
	}
	forms := []string{secret}
	if b, err := json.Marshal(secret); err == nil {
		esc := string(b[1 : len(b)-1])
		forms = append(forms, esc, strings.ReplaceAll(esc, "/", `\/`))
	}
	seen := map[string]bool{}
	for _, f := range forms {
		if !seen[f] {
			seen[f] = true
			r.secrets = append(r.secrets, []byte(f))
			r.hold = max(r.hold, len(f)-1)
		}
	}
	return r
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

// string redacts a whole string.
func (r *redactor) string(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, string(sec), Redacted)
	}
	return s
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
					tool.EmitOutput(ctx, "body", safe)
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
			tool.EmitOutput(ctx, "body", rest)
		}
	}
	return out, truncated, nil
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

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, int64(24*time.Hour/time.Second))) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}
