package redact

import (
	"bytes"
	"encoding/json"
)

// Output redacts a tool's structured output for a record of a call by the
// rule that redacts arguments (names that look secret, secrets inside
// strings), then masks the values SecretValues finds under paths in each
// of args (the call's arguments, and those it was asked with) wherever the
// tool echoed them into its strings, numbers and keys, as Message does in
// text. Escaped (\u0037) or not, an echo is found: the JSON is decoded to
// look. Output that is not JSON is masked whole.
func Output(out json.RawMessage, paths []string, args ...json.RawMessage) json.RawMessage {
	out = Args(out, nil)
	var values []string
	for i, a := range args {
		if len(a) > 0 && (i == 0 || !bytes.Equal(a, args[0])) {
			values = append(values, SecretValues(a, paths)...)
		}
	}
	if len(values) == 0 || (bytes.IndexByte(out, '\\') < 0 && Scrub(string(out), values) == string(out)) {
		return out // no value in it, and no escape to hide one
	}
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return maskedJSON
	}
	scrubbed, err := json.Marshal(scrubJSON(v, values))
	if err != nil {
		return maskedJSON
	}
	if bytes.Equal(scrubbed, out) {
		return out
	}
	return scrubbed
}

var maskedJSON = json.RawMessage(`"` + Mask + `"`)

// scrubJSON masks values in v, a decoded JSON value: in strings and keys
// as Scrub does, and a number that holds one whole.
func scrubJSON(v any, values []string) any {
	switch v := v.(type) {
	case string:
		return Scrub(v, values)
	case json.Number:
		if Scrub(v.String(), values) != v.String() {
			return Mask
		}
	case []any:
		for i, e := range v {
			v[i] = scrubJSON(e, values)
		}
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[Scrub(k, values)] = scrubJSON(e, values)
		}
		return m
	}
	return v
}
