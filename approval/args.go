package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/toolbelt-go/toolbelt/internal/canonjson"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// decodeObject parses args as one JSON object, numbers kept exact.
func decodeObject(args json.RawMessage) (map[string]any, error) {
	return schema.Decode(args)
}

// Canonical returns the canonical form of a JSON value (RFC 8785, as
// internal/canonjson writes it): object keys sorted, no insignificant white
// space, numbers as the doubles they denote (1 and 1.0 are the same).
// Two argument documents that mean the same have the same canonical form.
// The cache keys calls with the same function.
func Canonical(args json.RawMessage) ([]byte, error) {
	c, err := canonjson.Canonical(args)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return c, nil
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
// call's subject when its tool does not implement Subjecter and its input
// schema declares no path argument (sandbox.PathKeyword); "path" and "file"
// are then cleaned lexically, the way an undeclared path can be.
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
// one: t's own Subject when it implements Subjecter (empty means none);
// otherwise the first path argument t's input schema declares
// (sandbox.PathKeyword), in its canonical form: resolved in t's workspace
// when t names one (a Workspace() *sandbox.Workspace method, as the
// built-in file tools have), else cleaned lexically; a path that cannot be
// resolved (it leaves the workspace) is no subject, so no rule matches it.
// A tool that declares no path falls back to the first string field among
// SubjectFields.
func SubjectOf(t tool.Tool, args json.RawMessage) (string, bool) {
	var spec *tool.Spec
	if _, ok := t.(Subjecter); !ok && t != nil {
		s := t.Spec()
		spec = &s
	}
	s, _, ok := subjectOf(t, spec, nil, args)
	return s, ok
}

// subjectOf finds the subject; spec is the called tool's (may be nil), ws
// the workspace paths resolve in when t names none.
func subjectOf(t tool.Tool, spec *tool.Spec, ws *sandbox.Workspace, args json.RawMessage) (string, subjectKind, bool) {
	if s, ok := t.(Subjecter); ok {
		sub := s.Subject(args)
		return sub, subjectText, sub != ""
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil {
		return "", subjectText, false
	}
	if wt, ok := t.(interface{ Workspace() *sandbox.Workspace }); ok && wt.Workspace() != nil {
		ws = wt.Workspace()
	}
	var declared []string
	if spec != nil {
		declared = sandbox.PathArguments(spec.InputSchema)
	}
	for _, f := range declared {
		var s string
		if raw, ok := fields[f]; ok && json.Unmarshal(raw, &s) == nil {
			c, ok := canonicalPath(ws, s)
			return c, subjectPath, ok
		}
	}
	for _, f := range SubjectFields {
		if len(declared) > 0 && (f == "path" || f == "file") {
			continue // the tool said which arguments are paths
		}
		raw, ok := fields[f]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		switch f {
		case "command":
			return s, subjectText, true
		case "url":
			return s, subjectPath, true
		}
		c, ok := canonicalPath(nil, s)
		return c, subjectPath, ok
	}
	return "", subjectText, false
}

// canonicalPath returns the form of a path argument rules match: resolved
// in ws (sandbox.Workspace.Resolve), or without a workspace cleaned
// lexically ("docs/../src.go" is "src.go"). ok is false when the path
// leaves the workspace, or climbs out with ".." where there is none.
func canonicalPath(ws *sandbox.Workspace, p string) (string, bool) {
	if ws != nil {
		rel, err := ws.Resolve(p)
		return rel, err == nil
	}
	c := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if c == ".." || strings.HasPrefix(c, "../") || p == "" {
		return "", false
	}
	return c, true
}
