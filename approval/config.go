package approval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolbelt-go/toolbelt/internal/suggest"
	"github.com/toolbelt-go/toolbelt/internal/yamlbound"
)

// ParsePolicyConfig decodes a PolicyConfig from YAML or JSON (JSON is
// YAML) and refuses what a decoder of your own would silently ignore: a
// key it does not know (a misspelt deny_dangerous would otherwise leave
// dangerous calls waiting for a person, or approved by an allow rule).
// Every problem is reported at once, with its line and, for a misspelt
// key, the key meant. Call Policy on the result to compile the rules.
func ParsePolicyConfig(data []byte) (PolicyConfig, error) {
	var c PolicyConfig
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, errors.New("approval: the policy configuration is empty: give at least a mode (mode: auto)")
		}
		return c, fmt.Errorf("approval: policy configuration: %w", err)
	}
	// A second document ("---" or "..." between settings) would be
	// dropped without a word, its deny_dangerous with it.
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		line := more.Line
		if err != nil {
			return c, fmt.Errorf("approval: policy configuration: more than one YAML document: %w", err)
		}
		return c, fmt.Errorf("approval: policy configuration: line %d: more than one YAML document (a \"---\" or \"...\" ends the first): put every setting in one mapping", line)
	}
	if err := yamlbound.Check(&doc, 0, 0); err != nil {
		return c, fmt.Errorf("approval: policy configuration: %w", err)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return c, fmt.Errorf("approval: policy configuration: line %d: expected a mapping of settings (mode, deny, allow, ...)", root.Line)
	}
	known := configKeys()
	var errs []error
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		// An alias key is the key it stands for, not its anchor's name.
		for n := 0; k.Kind == yaml.AliasNode && k.Alias != nil && n < 16; n++ {
			k = k.Alias
		}
		line := root.Content[i].Line
		if _, ok := known[k.Value]; ok && k.Kind == yaml.ScalarNode {
			continue
		}
		msg := fmt.Sprintf("approval: policy configuration: line %d: unknown setting %q", line, k.Value)
		if s := suggest.Closest(k.Value, keysOf(known)); s != "" {
			msg += fmt.Sprintf(": did you mean %q?", s)
		} else {
			msg += ": the settings are " + strings.Join(keysOf(known), ", ")
		}
		errs = append(errs, errors.New(msg))
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	if err := root.Decode(&c); err != nil {
		return c, fmt.Errorf("approval: policy configuration: %w", err)
	}
	return c, nil
}

// configKeys are PolicyConfig's keys, from its yaml tags.
func configKeys() map[string]struct{} {
	keys := map[string]struct{}{}
	t := reflect.TypeFor[PolicyConfig]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		keys[name] = struct{}{}
	}
	return keys
}

func keysOf(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
