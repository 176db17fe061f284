package tool

import (
	"fmt"
	"strings"
)

// Risk is how much harm a tool can do if misused. It drives approval
// policies and authorisation ceilings. The zero value is RiskLow.
type Risk int8

// Risk levels, ordered: RiskLow < RiskMedium < RiskHigh.
const (
	// RiskLow: reads or computes; no side effects beyond the call.
	RiskLow Risk = iota
	// RiskMedium: changes local state that can be undone (writes a file in a
	// workspace, creates a branch).
	RiskMedium
	// RiskHigh: destructive, irreversible or outward-facing effects (deletes,
	// runs arbitrary commands, sends messages, spends money).
	RiskHigh
)

// String returns "low", "medium" or "high".
func (r Risk) String() string {
	switch r {
	case RiskLow:
		return "low"
	case RiskMedium:
		return "medium"
	case RiskHigh:
		return "high"
	}
	return fmt.Sprintf("risk(%d)", int8(r))
}

// MarshalText encodes the risk as its name.
func (r Risk) MarshalText() ([]byte, error) {
	if r < RiskLow || r > RiskHigh {
		return nil, fmt.Errorf("tool: invalid risk %d", int8(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText parses "low", "medium" or "high" (case-insensitive).
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
	case "low":
		return RiskLow, nil
	case "medium":
		return RiskMedium, nil
	case "high":
		return RiskHigh, nil
	}
	return 0, fmt.Errorf("tool: unknown risk %q: use low, medium or high", s)
}
