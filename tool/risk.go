package tool

import (
	"fmt"
	"strings"
)

// Risk is how much harm a tool can do if misused. It drives approval
// policies and authorisation ceilings. The zero value is RiskUnset: a tool
// whose author said nothing, which approval and authorisation treat as
// RiskMedium (see [Risk.Effective]), so a forgotten risk never auto-approves
// a destructive function.
type Risk int8

// Risk levels, ordered: RiskUnset < RiskLow < RiskMedium < RiskHigh. Compare
// [Risk.Effective] values, not raw ones, when judging a tool.
const (
	// RiskUnset: the tool's author gave no risk. It is judged as RiskMedium.
	RiskUnset Risk = iota
	// RiskLow: reads or computes; no side effects beyond the call.
	RiskLow
	// RiskMedium: changes local state that can be undone (writes a file in a
	// workspace, creates a branch).
	RiskMedium
	// RiskHigh: destructive, irreversible or outward-facing effects (deletes,
	// runs arbitrary commands, sends messages, spends money).
	RiskHigh
)

// Effective is the risk a tool is judged by: RiskMedium when unset, the
// risk itself otherwise (an out-of-range value is judged RiskHigh: fail
// closed).
func (r Risk) Effective() Risk {
	switch {
	case r == RiskUnset:
		return RiskMedium
	case r < RiskUnset || r > RiskHigh:
		return RiskHigh
	}
	return r
}

// String returns "unset", "low", "medium" or "high".
func (r Risk) String() string {
	switch r {
	case RiskUnset:
		return "unset"
	case RiskLow:
		return "low"
	case RiskMedium:
		return "medium"
	case RiskHigh:
		return "high"
	}
	return fmt.Sprintf("risk(%d)", int8(r))
}

// MarshalText encodes the risk as its name; RiskUnset as "".
func (r Risk) MarshalText() ([]byte, error) {
	if r < RiskUnset || r > RiskHigh {
		return nil, fmt.Errorf("tool: invalid risk %d", int8(r))
	}
	if r == RiskUnset {
		return []byte{}, nil
	}
	return []byte(r.String()), nil
}

// UnmarshalText parses "low", "medium" or "high" (case-insensitive); ""
// and "unset" are RiskUnset.
func (r *Risk) UnmarshalText(b []byte) error {
	v, err := ParseRisk(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseRisk parses "low", "medium" or "high" (case-insensitive).
func ParseRisk(s string) (Risk, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "unset":
		return RiskUnset, nil
	case "low":
		return RiskLow, nil
	case "medium":
		return RiskMedium, nil
	case "high":
		return RiskHigh, nil
	}
	return 0, fmt.Errorf("tool: unknown risk %q: use low, medium or high", s)
}
