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
// look. Output that is not JSON is masked whole, and so is output whose
// strings together would make Scrub's search for long values read more
// than 64 MiB (see Scrub): one bound for all of them, not one each.
func Output(out json.RawMessage, paths []string, args ...json.RawMessage) json.RawMessage {
	out = Args(out, nil)
	var values []string
	for i, a := range args {
		if len(a) > 0 && (i == 0 || !bytes.Equal(a, args[0])) {
			values = append(values, SecretValues(a, paths)...)
		}
	}
	sc := newScrubber(values)
	if sc == nil || (bytes.IndexByte(out, '\\') < 0 && sc.scrub(string(out)) == string(out)) {
		return out // no value in it, and no escape to hide one
	}
	if sc.over() {
		// Its strings would be searched again, under the bound the whole
		// output already passed (fail safe).
		return maskedJSON
	}
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return maskedJSON
	}
	scrubbed, err := json.Marshal(scrubJSON(v, sc))
	if err != nil || sc.over() {
		return maskedJSON
	}
	if bytes.Equal(scrubbed, out) {
		return out
	}
	return scrubbed
}

var maskedJSON = json.RawMessage(`"` + Mask + `"`)

// scrubJSON masks the values sc looks for in v, a decoded JSON value: in
// strings and keys as Scrub does, and a number that holds one whole.
func scrubJSON(v any, sc *scrubber) any {
	switch v := v.(type) {
	case string:
		return sc.scrub(v)
	case json.Number:
		if sc.scrub(v.String()) != v.String() {
			return Mask
		}
	case []any:
		for i, e := range v {
			v[i] = scrubJSON(e, sc)
		}
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[sc.scrub(k)] = scrubJSON(e, sc)
		}
		return m
	}
	return v
}
