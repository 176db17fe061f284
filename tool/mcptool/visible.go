package mcptool

import (
	"bytes"
	"encoding/json"

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
