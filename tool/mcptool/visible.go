package mcptool

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/approval"
)

// visibleSchema shows, as escapes, the characters a person would not see
// (or a terminal would act on) in the "description" and "title" texts of
// a server's schema, as approval.VisibleLines does: they go to the model
// and to whoever reads the spec. Values (default, const, enum, examples)
// are data and are left as they are. raw is returned unchanged when there
// is nothing to show.
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
// tag characters, or behind a bidi override): the model reads keys as it
// reads descriptions, but a key cannot be shown escaped, since the model
// must send a property's name back as the server wrote it. Values
// (default, const, enum, examples) are data and are not looked into.
func hiddenKey(raw json.RawMessage) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil // the schema's compilation reports it
	}
	var walk func(v any) string
	walk = func(v any) string {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if approval.Visible(k) != k {
					return k
				}
				if k == "default" || k == "const" || k == "enum" || k == "examples" {
					continue
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
	if k := walk(v); k != "" {
		return fmt.Errorf("the key \"%s\" (shown escaped) carries characters a person would not see: the model would read them unseen by whoever reviews the tools, and a name cannot be escaped, since the model must send it back as written; fix the server",
			cutText(approval.Visible(k), "key", maxKeyShown))
	}
	return nil
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
					if vs := approval.VisibleLines(s); vs != s {
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
