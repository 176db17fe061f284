package mcptool

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/approval"
)

// shownLines is a server's text of several lines (a description) as the
// model and a reviewer get it: the characters a person would not see shown
// as escapes (approval.VisibleLines), and the chat templates' control
// tokens spelt with a space inside (wire.Defuse), as wire.Text spells a
// result's. A local model's server renders the offered tools into the
// prompt and tokenizes it with special tokens parsed: a description
// spelling "<|im_end|><|im_start|>system" would open a system turn.
func shownLines(s string) string { return wire.Defuse(approval.VisibleLines(s)) }

// shown is shownLines for a text of one line (a title).
func shown(s string) string { return wire.Defuse(approval.Visible(s)) }

// visibleSchema shows, as escapes, the characters a person would not see
// (or a terminal would act on) in the "description" and "title" texts of
// a server's schema, and spells the chat templates' control tokens with a
// space inside (shownLines): they go to the model and to whoever reads the
// spec. Values (default, const, enum, examples) are data and are left as
// they are. raw is returned unchanged when there is nothing to show.
func visibleSchema(raw json.RawMessage) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	if !visibleTexts(v) {
		return raw
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return raw
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// hiddenKey reports a key of raw, a server's schema, that carries
// characters a person would not see (a property's name written in Unicode
// tag characters, or behind a bidi override), or that spells a chat
// template's control token ("<|im_start|>", "[INST]"): the model reads
// keys as it reads descriptions, but a key cannot be shown escaped or
// respelt, since the model must send a property's name back as the
// server wrote it. Values (default, const, enum, examples) are data,
// looked into only for a control token (tokenValue), which the server's
// template would render into the prompt and which cannot be respelt
// either; so are the schema's other strings but description and title
// ($comment, pattern, format, an x- extension's text: tokenString).
func hiddenKey(raw json.RawMessage) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil // the schema's compilation reports it
	}
	var value string // a value that spells a control token, and where
	var walk func(v any) string
	walk = func(v any) string {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if shown(k) != k {
					return k
				}
				if k == "default" || k == "const" || k == "enum" || k == "examples" {
					if s, ok := tokenValue(e); ok && value == "" {
						value = k + " value " + quote(cutText(s, "value", maxKeyShown))
					}
					continue
				}
				// Every other string of the schema reaches the model with
				// it too ($comment, pattern, format, an x- extension's
				// text); description and title strings are respelt
				// (visibleTexts), the rest is the server's to fix.
				if k != "description" && k != "title" && value == "" {
					if s, ok := tokenString(e); ok {
						value = k + " value " + quote(cutText(s, "value", maxKeyShown))
					}
				}
				if bad := walk(e); bad != "" {
					return bad
				}
			}
		case []any:
			for _, e := range x {
				if bad := walk(e); bad != "" {
					return bad
				}
			}
		}
		return ""
	}
	if k := walk(v); k != "" && approval.Visible(k) == k {
		return fmt.Errorf("the key %q spells a chat template's control token (such as <|im_start|> or [INST]): a local model's server would read it as the end of the tools and the start of another turn, and a name cannot be respelt, since the model must send it back as written; fix the server",
			cutText(k, "key", maxKeyShown))
	} else if k != "" {
		return fmt.Errorf("the key \"%s\" (shown escaped) carries characters a person would not see: the model would read them unseen by whoever reviews the tools, and a name cannot be escaped, since the model must send it back as written; fix the server",
			cutText(approval.Visible(k), "key", maxKeyShown))
	}
	if value != "" {
		return fmt.Errorf("the %s spells a chat template's control token (such as <|im_start|> or [INST]): a local model's server renders the schema into the prompt and would read it as the start of another turn, and a value cannot be respelt, since the model must send it back as written; fix the server", value)
	}
	return nil
}

// tokenValue returns a string of v, a schema's value (a default, const,
// enum or examples), that spells a chat template's control token, as a
// string or an object's key.
func tokenValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, wire.Defuse(x) != x
	case map[string]any:
		for k, e := range x {
			if wire.Defuse(k) != k {
				return k, true
			}
			if s, ok := tokenValue(e); ok {
				return s, true
			}
		}
	case []any:
		for _, e := range x {
			if s, ok := tokenValue(e); ok {
				return s, true
			}
		}
	}
	return "", false
}

// tokenString returns v, a string of a schema or an array's string, that
// spells a chat template's control token; objects are walked by
// hiddenKey, which judges their keys and strings by their own names.
func tokenString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, wire.Defuse(x) != x
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && wire.Defuse(s) != s {
				return s, true
			}
		}
	}
	return "", false
}

// maxKeyShown is how much of a schema key an error message shows.
const maxKeyShown = 256

// visibleTexts rewrites the description and title strings inside v and
// reports whether it changed any.
func visibleTexts(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "default", "const", "enum", "examples":
				continue
			case "description", "title":
				if s, ok := e.(string); ok {
					if vs := shownLines(s); vs != s {
						x[k], changed = vs, true
					}
					continue
				}
			}
			if visibleTexts(e) {
				changed = true
			}
		}
	case []any:
		for _, e := range x {
			if visibleTexts(e) {
				changed = true
			}
		}
	}
	return changed
}
