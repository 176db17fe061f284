package redact

import (
	"regexp"
)

// callPair is a call's two quoted arguments, a name and a value, as code
// sets a header or an environment variable: ("Authorization", "Bearer
// x"), ('X-Api-Key', 'x'), ("GITHUB_TOKEN", "x"). Group 1 is the name,
// 2 a scheme word before the value (kept), 3 the value.
var callPair = regexp.MustCompile(`["']([A-Za-z][A-Za-z0-9_.-]*)["'][ \t]*,[ \t]*["']((?i:bearer|basic|token|bot|digest|apikey)[ \t]+)?([^"'\s]+)["']`)

// maskCallPairs masks the value of each callPair whose name looks secret
// (LooksSecret, LooksSecretEnv for an upper-case name) and whose value,
// one word after a scheme's, looks like a credential (credentialLike):
// code's ("password", "is required") and ("token", "abc") are a message
// and a test's name. The JSON rule reads the same pair in an array.
func maskCallPairs(s string) string {
	var spans []span
	for _, m := range callPair.FindAllStringSubmatchIndex(s, -1) {
		name, value := s[m[2]:m[3]], s[m[6]:m[7]]
		secret := LooksSecret(name) || isUpperName(name) && LooksSecretEnv(name)
		// A value that is a secret's name too is a list of names
		// (case "Authorization", "Cookie2":).
		if secret && credentialLike(value) && !LooksSecret(value) {
			spans = append(spans, span{m[6], m[7]})
		}
	}
	return maskSpans(s, spans)
}
