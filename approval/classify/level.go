package classify

import (
	"fmt"
	"strings"
)

// Level is how dangerous a command is. Levels are ordered: Safe < Warning <
// Dangerous < Blocked, so the level of a whole command line is the maximum
// over the commands it contains and levels can be compared with < and >.
//
// The zero Level is Safe; a Verdict produced by this package never leaves it
// at the zero value by accident: every path that cannot decide picks a level
// explicitly.
type Level int

const (
	// Safe commands only read: they may run without asking anyone.
	Safe Level = iota
	// Warning commands change local state (files, packages, commits) or are
	// not known to this classifier; an approver should usually ask.
	Warning
	// Dangerous commands can destroy data or run code that cannot be seen
	// (forced pushes, recursive deletes, piping into a shell, unparsable
	// input); an approver must ask explicitly.
	Dangerous
	// Blocked commands must never run (privilege escalation, wiping disks or
	// the root file system, executing downloaded code, fork bombs).
	Blocked
)

var levelNames = [...]string{"safe", "warning", "dangerous", "blocked"}

// String returns the lower-case name of the level ("safe", "warning",
// "dangerous", "blocked"), or "Level(N)" for an out-of-range value.
func (l Level) String() string {
	if l >= Safe && l <= Blocked {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText encodes the level as its name, so levels read well in JSON and
// YAML. Out-of-range levels are an error.
func (l Level) MarshalText() ([]byte, error) {
	if l < Safe || l > Blocked {
		return nil, fmt.Errorf("classify: invalid level %d", int(l))
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText decodes a level name, case-insensitively.
func (l *Level) UnmarshalText(text []byte) error {
	v, err := ParseLevel(string(text))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLevel returns the Level named s ("safe", "warning", "dangerous" or
// "blocked", case-insensitive, surrounding spaces ignored).
func ParseLevel(s string) (Level, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, n := range levelNames {
		if n == t {
			return Level(i), nil
		}
	}
	return Safe, fmt.Errorf("classify: unknown level %q (want safe, warning, dangerous or blocked)", s)
}
