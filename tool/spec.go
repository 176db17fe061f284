package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"
)

// Operating modes a deployment can be in. Specs list the modes they may run
// in; the policy extension holds the current mode. Modes are plain strings so
// deployments can add their own.
const (
	ModeNormal   = "normal"
	ModeAlert    = "alert"
	ModeDegraded = "degraded"
	ModeLockdown = "lockdown"
	ModeRecovery = "recovery"
)

// Annotations are the MCP tool hints. They describe a tool to clients and
// drive the SDK's own defaults: the cache extension caches only tools that
// are both ReadOnly and Idempotent, and the retry extension retries only
// tools that are Idempotent or ReadOnly (or that it is told are safe to
// repeat). A false hint may just be unset: the MCP export leaves it out.
type Annotations struct {
	// Title is a human-readable name.
	Title string `json:"title,omitempty"`
	// ReadOnly: the tool does not modify its environment.
	ReadOnly bool `json:"readOnlyHint"`
	// Destructive: the tool may delete or overwrite (meaningful when not ReadOnly).
	Destructive bool `json:"destructiveHint"`
	// Idempotent: calling again with the same arguments has no further effect.
	Idempotent bool `json:"idempotentHint"`
	// OpenWorld: the tool talks to entities outside the program (the web, other people).
	OpenWorld bool `json:"openWorldHint"`
}

// Spec describes a tool: what a model sees (name, description, schemas) and
// what the executor and extensions use to govern it.
type Spec struct {
	// Name is unique in a registry and valid for every provider:
	// ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$.
	Name string `json:"name"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description"`
	// InputSchema is a JSON Schema whose root is an object.
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema, when set, is a JSON Schema (root object) that structured
	// output must satisfy.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Version distinguishes behaviourally different revisions (cache keys use it).
	Version string `json:"version,omitempty"`
	// Category groups tools for filters and authorisation rules ("files", "git").
	Category string `json:"category,omitempty"`
	// Tags are free-form labels for filters.
	Tags []string `json:"tags,omitempty"`
	// Risk is the tool's inherent risk.
	Risk Risk `json:"risk"`
	// RequiresApproval asks the approval extension to ask a human every time.
	// An executor without an approval extension refuses the tool's calls
	// (approval_denied) rather than run them unasked.
	RequiresApproval bool `json:"requires_approval,omitempty"`
	// AllowedModes lists the operating modes the tool may run in; empty means all.
	AllowedModes []string `json:"allowed_modes,omitempty"`
	// Timeout is the tool's default deadline for one run of its backend.
	Timeout time.Duration `json:"timeout,omitempty"`
	// RateLimitPerHour, when positive, is the tool's own rate limit, applied by
	// the rate limit extension.
	RateLimitPerHour int `json:"rate_limit_per_hour,omitempty"`
	// Annotations are the MCP hints.
	Annotations Annotations `json:"annotations"`
	// Secrets lists argument fields (dotted JSON paths such as "auth.token")
	// that are redacted wherever the SDK writes arguments: logs, audit, events.
	// Their values (4 bytes or longer) are also masked in the error a
	// backend or an extension returns when it echoes one ("pin 739164
	// rejected"), before any extension outside it, log or model reads it
	// (extension.MaskSecretEchoes). tool.Func fills it from
	// `toolbelt:"secret"` struct tags.
	Secrets []string `json:"secrets,omitempty"`
}

var nameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// ValidName reports whether name is portable to every provider.
func ValidName(name string) bool { return nameRE.MatchString(name) }

// CheckName returns a descriptive error when name is not portable.
func CheckName(name string) error {
	if ValidName(name) {
		return nil
	}
	if name == "" {
		return fmt.Errorf("tool name is empty: give the tool a name such as \"search\"")
	}
	if len(name) > 64 {
		return fmt.Errorf("tool name %q is %d characters: providers accept at most 64", name, len(name))
	}
	return fmt.Errorf("tool name %q is not portable: use letters, digits, '_' and '-', starting with a letter or '_' (pattern ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$)", name)
}

// JudgedRisk is the risk the rules judge the tool by: RiskHigh for a tool
// marked destructive and not read-only, whatever risk it sets (the
// approval extension judges such a tool dangerous), Risk.Effective()
// otherwise. The auth extension's ceilings and registry.Filter's MaxRisk
// read it.
func (s *Spec) JudgedRisk() Risk {
	if s.Annotations.Destructive && !s.Annotations.ReadOnly {
		return RiskHigh
	}
	return s.Risk.Effective()
}

// AllowsMode reports whether the spec may run in mode (an empty list allows all).
func (s *Spec) AllowsMode(mode string) bool {
	if len(s.AllowedModes) == 0 || mode == "" {
		return true
	}
	for _, m := range s.AllowedModes {
		if m == mode {
			return true
		}
	}
	return false
}

// HasTag reports whether the spec carries tag.
func (s *Spec) HasTag(tag string) bool {
	for _, t := range s.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// Clone returns a copy of the spec whose slices (the schemas, tags, modes
// and secrets) have backing arrays of their own, so that writing into the
// copy's leaves the spec alone. The registry keeps a clone of what a tool's
// Spec returns, and an approver is shown one.
func (s Spec) Clone() Spec {
	s.InputSchema, s.OutputSchema = bytes.Clone(s.InputSchema), bytes.Clone(s.OutputSchema)
	s.Tags, s.AllowedModes, s.Secrets = slices.Clone(s.Tags), slices.Clone(s.AllowedModes), slices.Clone(s.Secrets)
	return s
}
