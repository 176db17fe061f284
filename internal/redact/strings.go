package redact

import (
	"regexp"
	"strings"
)

// stringRules find secrets inside strings: a value whose key says nothing
// ("command", "url", "text") can still hold a password in a URL, a bearer
// token in a curl command, a private key, or a provider's API key.
var stringRules = []struct {
	re   *regexp.Regexp
	repl string
}{
	// PEM private key blocks, to the end marker (or the end of the text).
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)`), Mask},
	// user:password@ in a URL (a DSN): the user stays, the password goes.
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'"]*):[^/\s@'"]+@`), "${1}:" + Mask + "@"},
	// Authorization and Cookie headers, with or without a scheme.
	{regexp.MustCompile(`(?i)((?:proxy-)?authorization\s*[:=]\s*(?:bearer|basic|token|digest|bot)?\s*)[^\s'"]+`), "${1}" + Mask},
	{regexp.MustCompile(`(?i)((?:set-)?cookie\s*:\s*)[^'"\r\n]+`), "${1}" + Mask},
	// A bare bearer or basic credential.
	{regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`), "${1} " + Mask},
	// NAME=value where the name says secret (PGPASSWORD=..., ?api_key=...).
	{regexp.MustCompile(`(?i)\b([a-z0-9_]*(?:password|passwd|pwd|secret|token|api_?key|access_?key|private_?key|credential)[a-z0-9_]*)=([^\s&;'"]+)`), "${1}=" + Mask},
	// Well-known key shapes.
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), Mask},                    // AWS access key id
	{regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b`), Mask},     // GitHub tokens
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}\b`), Mask},                 // GitHub fine-grained tokens
	{regexp.MustCompile(`\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}`), Mask},  // OpenAI and Anthropic keys
	{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), Mask},                  // Slack tokens
	{regexp.MustCompile(`https://hooks\.slack\.com/services/[A-Za-z0-9/]+`), Mask}, // Slack webhooks
}

// hints are cheap substrings at least one of which a string must hold for
// any string rule to match; most strings hold none and skip the regexps.
var hints = []string{"://", "-----BEGIN", "earer", "EARER", "asic ", "ASIC ", "uthorization", "UTHORIZATION",
	"ookie", "OOKIE", "=", "AKIA", "ASIA", "gh", "sk-", "xox"}

// String masks the secrets found inside s: private key blocks, passwords in
// URLs, Authorization and Cookie headers, bearer and basic credentials,
// NAME=value pairs whose name says secret, and the key shapes of AWS,
// GitHub, OpenAI, Anthropic and Slack. The rest of s is kept, so a command
// or an error message stays readable. It is the string half of the one
// redaction rule; names are the other (LooksSecret).
func String(s string) string {
	if !hasHint(s) {
		return s
	}
	for _, r := range stringRules {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}

func hasHint(s string) bool {
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}
