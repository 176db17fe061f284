// Package approvalmeta reads the approval decision a result's metadata
// records: the one reader the agent's Decisions, the audit trail and the
// metrics use, so that they tell one story of a call. It is apart from
// package approval so that the metrics extension can read a decision
// without importing the approval rules.
package approvalmeta

import "fmt"

// Key is the result metadata key under which an approval extension records
// its decision (approval.MetaKey).
const Key = "approval"

// ModifiedKey is the result metadata key an approval extension sets (true)
// when an approver changed the call's arguments (approval.MetaModifiedKey).
const ModifiedKey = "modified_args"

// Decision returns the decision meta records under Key: a string, a
// fmt.Stringer (approval.Kind), or a map whose "decision" holds either, as
// extension/approvalgate and the executor's own refusals write, with who
// decided in the map's "decided_by"; or "modify" when only ModifiedKey is
// there. decision is "" when meta records none.
func Decision(meta map[string]any) (decision, decidedBy string) {
	v := meta[Key]
	if m, ok := v.(map[string]any); ok {
		v = m["decision"]
		decidedBy, _ = m["decided_by"].(string)
	}
	switch d := v.(type) {
	case string:
		decision = d
	case fmt.Stringer:
		decision = stringOf(d)
	}
	if _, ok := meta[ModifiedKey]; ok && decision == "" {
		decision = "modify"
	}
	return decision, decidedBy
}

// Unreadable is the decision Decision returns for a fmt.Stringer whose
// String panics (a nil pointer an extension put in the metadata): the
// readers run after the tool, and a panic there would become the answer of
// a call that ran.
const Unreadable = "unreadable"

// stringOf is s.String(), or Unreadable when it panics.
func stringOf(s fmt.Stringer) (out string) {
	defer func() {
		if recover() != nil {
			out = Unreadable
		}
	}()
	return s.String()
}
