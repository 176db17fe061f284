// Package yamlbound bounds what a YAML document can make a loader build: the
// number of nodes it expands to (aliases counted each time they are used, so
// a "billion laughs" of nested anchors is refused before anything expands
// it) and its nesting depth. Every loader of user YAML checks a decoded
// document with it before building anything from it.
package yamlbound

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The default bounds: far above any real tool spec or governance file.
const (
	DefaultMaxNodes = 100_000
	DefaultMaxDepth = 100
)

// Error says which bound a document broke and where.
type Error struct {
	Line    int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Message) }

// Check walks doc as a loader would, following aliases, and returns an
// *Error when it expands to more than maxNodes nodes or nests deeper than
// maxDepth. Zero or negative bounds take the defaults. It stops at the
// first node past a bound, so a bomb costs no more than maxNodes steps.
func Check(doc *yaml.Node, maxNodes, maxDepth int) error {
	if maxNodes <= 0 {
		maxNodes = DefaultMaxNodes
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	w := walker{left: maxNodes, maxNodes: maxNodes, maxDepth: maxDepth}
	return w.walk(doc, 0, nil)
}

type walker struct {
	left, maxNodes, maxDepth int
}

func (w *walker) walk(n *yaml.Node, depth int, via *yaml.Node) error {
	if n == nil {
		return nil
	}
	w.left--
	if w.left < 0 {
		at := n
		if via != nil {
			at = via
		}
		return &Error{Line: at.Line, Message: fmt.Sprintf("the document expands to more than %d nodes (aliases count each time they are used): is it an alias bomb? write the values out, or split the file", w.maxNodes)}
	}
	if depth > w.maxDepth {
		return &Error{Line: n.Line, Message: fmt.Sprintf("the document nests deeper than %d levels", w.maxDepth)}
	}
	if n.Kind == yaml.AliasNode {
		if via == nil {
			via = n
		}
		return w.walk(n.Alias, depth+1, via)
	}
	for _, c := range n.Content {
		if err := w.walk(c, depth+1, via); err != nil {
			return err
		}
	}
	return nil
}
