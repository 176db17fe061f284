package httptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/errtext"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/tool"
)

// minConfigSecret is the length below which a credential value written
// in a tool's config (see the package doc) is not masked in what the tool
// returns: masking every "v2" or "dark" a response holds would garble
// ordinary text, and a value that short is no secret worth the name. The
// credential of Config.Auth is masked at any length.
const minConfigSecret = 8

// configSecrets returns the credential values the config writes itself:
// the fixed text of a header whose name looks secret by the project's rule
// for terse names (redact.LooksSecretEnv, the rule for environment
// variables: Authorization, Proxy-Authorization, Cookie, X-Api-Key,
// api-key, X-Auth-Token, ...), and of a query parameter whose name does
// (api_key, access_token, client_secret, and a bare key, sig or signature
// as Google's and presigned URLs write them), mapped in Config.Query or
// fixed in the URL's query. Text an argument fills in is
// the model's own and is not collected.
func configSecrets(headers, query []mapped, fixedQuery url.Values) []string {
	var out []string
	add := func(lit string) {
		for _, v := range secretParts(lit) {
			if len(v) >= minConfigSecret {
				out = append(out, v)
			}
		}
	}
	for _, ms := range [][]mapped{headers, query} {
		for _, m := range ms {
			if !redact.LooksSecretEnv(m.name) {
				continue
			}
			for _, p := range m.t.parts {
				if p.arg == "" {
					add(p.lit)
				}
			}
		}
	}
	for name, vs := range fixedQuery {
		if redact.LooksSecretEnv(name) {
			for _, v := range vs {
				add(v)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// secretParts splits a credential's text into what an echo may show of
// it: the whole text, and each of its fields (split at spaces, ';' and
// ','), the value of a name=value field (a cookie) rather than the
// field. A leading scheme ("Bearer", "Basic", "Token") is no secret.
func secretParts(lit string) []string {
	lit = strings.TrimSpace(lit)
	out := []string{lit}
	fields := strings.FieldsFunc(lit, func(r rune) bool { return r == ' ' || r == '\t' || r == ';' || r == ',' })
	if len(fields) > 1 && !strings.Contains(fields[0], "=") {
		fields = fields[1:]
	}
	for _, f := range fields {
		// A base64 token ends in '=' padding; a cookie has a value.
		if name, v, ok := strings.Cut(f, "="); ok && name != "" && strings.TrimRight(v, "=") != "" {
			f = strings.Trim(v, `"`)
		}
		out = append(out, f)
	}
	return out
}

// mask redacts the call's secrets from everything Run returns, before the
// executor (and so the model, the audit trail and the logs) sees it: the
// text blocks, the structured output, the string metadata, and the error's
// message and cause.
func (r *redactor) mask(res *tool.Result, err error) (*tool.Result, error) {
	if len(r.values) == 0 {
		return res, err
	}
	if res != nil {
		for i := range res.Content {
			res.Content[i].Text = r.string(res.Content[i].Text)
		}
		if len(res.Output) > 0 {
			res.Output = r.json(res.Output)
		}
		for k, v := range res.Metadata {
			if s, ok := v.(string); ok {
				res.Metadata[k] = r.string(s)
			}
		}
	}
	var te *tool.Error
	if errors.As(err, &te) {
		te.Message = r.string(te.Message)
		if te.Err != nil {
			if text := r.string(te.Err.Error()); text != te.Err.Error() {
				te.Err = errtext.New(text, te.Err)
			}
		}
	} else if err != nil {
		if text := r.string(err.Error()); text != err.Error() {
			err = errtext.New(text, err)
		}
	}
	return res, err
}

// json redacts structured output inside its strings (keys too): the
// output stays JSON of the same shape. A number that holds a secret
// becomes the string "[REDACTED]".
func (r *redactor) json(out json.RawMessage) json.RawMessage {
	if bytes.IndexByte(out, '\\') < 0 && r.string(string(out)) == string(out) {
		return out // no secret in it, and no escape to hide one
	}
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return json.RawMessage(`"` + Redacted + `"`) // not JSON: nothing to keep
	}
	changed := false
	v = r.jsonValue(v, &changed)
	// The decoder keeps the last value of a key an object repeats, so the
	// earlier ones were never looked into: the server's text is kept only
	// when it repeats no key ({"url":"...key...","url":"y"} would show
	// the first url whole).
	if !changed && schema.UniqueKeys(out) == nil {
		return out // escapes, but no secret behind them: keep the server's text
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return json.RawMessage(`"` + Redacted + `"`)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonValue masks the secrets in v, a decoded JSON value, and sets
// *changed when it masked one.
func (r *redactor) jsonValue(v any, changed *bool) any {
	switch v := v.(type) {
	case string:
		if s := r.string(v); s != v {
			*changed = true
			return s
		}
	case json.Number:
		if r.string(v.String()) != v.String() {
			*changed = true
			return Redacted
		}
	case []any:
		for i, e := range v {
			v[i] = r.jsonValue(e, changed)
		}
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			mk := r.string(k)
			if mk != k {
				*changed = true
			}
			m[mk] = r.jsonValue(e, changed)
		}
		return m
	}
	return v
}
