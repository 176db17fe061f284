package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/tool"
)

// decodeObject parses args as one JSON object, numbers kept exact.
func decodeObject(args json.RawMessage) (map[string]any, error) {
	return schema.Decode(args)
}

// Canonical returns the canonical form of a JSON value: object keys sorted,
// insignificant white space removed, numbers kept as written. Two argument
// documents that mean the same have the same canonical form.
func Canonical(args json.RawMessage) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("arguments have trailing data after the JSON value")
	}
	// encoding/json writes map keys sorted, which is what makes this canonical.
	return json.Marshal(v)
}

// HashArgs returns "sha256:" and the hex SHA-256 of the canonical form of
// args. Decisions are bound to this hash: arguments that hash differently
// are different arguments.
func HashArgs(args json.RawMessage) (string, error) {
	c, err := Canonical(args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

var validators sync.Map // string(input schema) → *schema.Validator or error

func validatorFor(spec *tool.Spec) (*schema.Validator, error) {
	raw := spec.InputSchema
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	key := string(raw)
	if v, ok := validators.Load(key); ok {
		if err, bad := v.(error); bad {
			return nil, err
		}
		return v.(*schema.Validator), nil
	}
	val, err := schema.Compile(raw)
	if err != nil {
		err = fmt.Errorf("input schema of tool %q: %w", spec.Name, err)
		validators.Store(key, err)
		return nil, err
	}
	validators.Store(key, val)
	return val, nil
}

// ValidateArgs checks args against the input schema of spec, the way the
// executor checks a model's arguments: a JSON object, optional nulls that
// the schema does not accept dropped, every field valid. It returns the
// arguments to run with (compacted) or an error naming each failing field.
// Approvers use it to refuse a bad modification before it is accepted.
func ValidateArgs(spec *tool.Spec, args json.RawMessage) (json.RawMessage, error) {
	val, err := validatorFor(spec)
	if err != nil {
		return nil, err
	}
	m, err := decodeObject(args)
	if err != nil {
		return nil, err
	}
	val.StripNulls(m)
	if err := val.Validate(m); err != nil {
		return nil, err
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("re-encode arguments: %v", err)
	}
	return out, nil
}

// SubjectFields are the argument fields, in order, whose string value is a
// call's subject when its tool does not implement Subjecter.
var SubjectFields = []string{"command", "path", "file", "url"}

// subjectKind says how wildcards in a rule match a subject.
type subjectKind uint8

const (
	// subjectText: a command line or a tool's own subject. * and ** match
	// any text (except shell control operators, in allow rules).
	subjectText subjectKind = iota
	// subjectPath: a path or URL. * stops at '/', ** crosses it.
	subjectPath
)

// SubjectOf returns what a call to t with args acts on, and whether there is
// one: t's own Subject when it implements Subjecter (empty means none),
// otherwise the first string field among SubjectFields.
func SubjectOf(t tool.Tool, args json.RawMessage) (string, bool) {
	s, _, ok := subjectOf(t, args)
	return s, ok
}

func subjectOf(t tool.Tool, args json.RawMessage) (string, subjectKind, bool) {
	if s, ok := t.(Subjecter); ok {
		sub := s.Subject(args)
		return sub, subjectText, sub != ""
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil {
		return "", subjectText, false
	}
	for _, f := range SubjectFields {
		raw, ok := fields[f]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		kind := subjectPath
		if f == "command" {
			kind = subjectText
		}
		return s, kind, true
	}
	return "", subjectText, false
}
