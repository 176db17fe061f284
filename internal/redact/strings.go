package redact

import (
	"regexp"
	"strings"
)

// Key shapes are matched anywhere a word could start: after a character
// that is not a letter or digit ("_", "=", ":", a quote), so a key glued
// to a variable name (TOKEN_ghp_…, key_sk-…) is found too. Group 1 is that
// character, kept.
const shapeStart = `(^|[^A-Za-z0-9])`

// stringRules find secrets inside strings: a value whose key says nothing
// ("command", "url", "text") can still hold a password in a URL, a bearer
// token in a curl command, a private key, or a provider's API key.
// Each rule runs only on strings holding one of its hints (cheap
// substrings every match contains); most strings hold none.
var stringRules = []struct {
	hints []string
	re    *regexp.Regexp
	repl  string
}{
	// PEM private key blocks, to the end marker (or the end of the text).
	{[]string{"-----BEGIN"}, regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)`), Mask},
	// PuTTY private key files, to the MAC line (or the end of the text).
	{[]string{"PuTTY-User-Key-File-"}, regexp.MustCompile(`PuTTY-User-Key-File-[0-9]+:(?s:.*?)(Private-MAC:[^\r\n]*|$)`), Mask},
	// user:password@ in a URL (a DSN): the user stays, the password (which
	// may itself hold an unescaped "@") goes.
	{[]string{"://"}, regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'"]*):[^/?#\s'"]+@`), "${1}:" + Mask + "@"},
	// Authorization and Cookie headers, with or without a scheme.
	{[]string{"uthorization", "UTHORIZATION"}, regexp.MustCompile(`(?i)((?:proxy-)?authorization\s*[:=]\s*(?:bearer|basic|token|digest|bot)?\s*)[^\s'"]+`), "${1}" + Mask},
	{[]string{"ookie", "OOKIE"}, regexp.MustCompile(`(?i)((?:set-)?cookie\s*:\s*)[^'"\r\n]+`), "${1}" + Mask},
	// A bare bearer or basic credential.
	{[]string{"earer", "EARER", "asic", "ASIC"}, regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`), "${1} " + Mask},
	// Well-known key shapes.
	{[]string{"AKIA", "ASIA"}, regexp.MustCompile(`(^|[^A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}`), "${1}" + Mask},                                        // AWS access key id
	{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(shapeStart + `(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}`), "${1}" + Mask}, // GitHub tokens
	{[]string{"github_pat_"}, regexp.MustCompile(shapeStart + `github_pat_[A-Za-z0-9_]{20,}`), "${1}" + Mask},                                      // GitHub fine-grained tokens
	{[]string{"sk-"}, regexp.MustCompile(shapeStart + `sk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}`), "${1}" + Mask},                             // OpenAI and Anthropic keys
	{[]string{"xox"}, regexp.MustCompile(shapeStart + `xox[abposr]-[A-Za-z0-9-]{10,}`), "${1}" + Mask},                                             // Slack tokens
	{[]string{"hooks.slack.com"}, regexp.MustCompile(`https://hooks\.slack\.com/services/[A-Za-z0-9/]+`), Mask},                                    // Slack webhooks
	{[]string{"AIza"}, regexp.MustCompile(shapeStart + `AIza[0-9A-Za-z_-]{30,}`), "${1}" + Mask},                                                   // Google API keys
	{[]string{"glpat-"}, regexp.MustCompile(shapeStart + `glpat-[0-9A-Za-z_-]{20,}`), "${1}" + Mask},                                               // GitLab tokens
	{[]string{"npm_"}, regexp.MustCompile(shapeStart + `npm_[A-Za-z0-9]{36}`), "${1}" + Mask},                                                      // npm tokens
	{[]string{"k_live_", "k_test_"}, regexp.MustCompile(shapeStart + `[rs]k_(?:live|test)_[0-9A-Za-z]{16,}`), "${1}" + Mask},                       // Stripe keys
	{[]string{"hf_"}, regexp.MustCompile(shapeStart + `hf_[A-Za-z0-9]{30,}`), "${1}" + Mask},                                                       // Hugging Face tokens
	{[]string{"eyJ"}, regexp.MustCompile(shapeStart + `eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), "${1}" + Mask},                // JWTs
}

// pairRe finds the name of a name=value pair, a name: value pair (a header,
// YAML, JSON inside a string, quoted at any depth of escaping), or a
// command-line flag (--name value, --name=value). Groups: 1 the flag
// dashes, 2 the name, 3 the separator. A match is leftmost, so a name
// starts at the start of its word.
var pairRe = regexp.MustCompile(`(-{0,2})([\p{L}\p{N}_][\p{L}\p{N}_.\-]*)(?:\\*["'])?([ \t]*(?::=|=>|[:=])[ \t]*|[ \t]+)`)

// mayHavePair reports whether pairRe could find a pair in s: it needs a
// separator, "=" or ":", or a flag's dash and white space.
func mayHavePair(s string) bool {
	return strings.ContainsAny(s, "=:") || (strings.Contains(s, "-") && strings.ContainsAny(s, " \t"))
}

// String masks the secrets found inside s: private key blocks, passwords in
// URLs, Authorization and Cookie headers, bearer and basic credentials, the
// values of name=value and name: value pairs and of --name flags whose name
// looks secret (LooksSecret; in a URL query or an upper-case environment
// name, LooksSecretEnv, so ?key= and &sig= count), and the key shapes of
// AWS, GitHub, OpenAI, Anthropic, Slack, Google, GitLab, npm, Stripe,
// Hugging Face and JWTs. The rest of s is kept, so a command or an error
// message stays readable. It is the string half of the one redaction rule;
// names are the other (LooksSecret).
func String(s string) string {
	for _, r := range stringRules {
		if containsAny(s, r.hints) {
			s = r.re.ReplaceAllString(s, r.repl)
		}
	}
	if mayHavePair(s) {
		s = maskPairs(s)
	}
	return s
}

// hasHint reports whether String could change s: a separator or flag for
// pairRe, or the first three bytes of some rule's hint (looked up in a
// hashed set in one pass, so most strings are dismissed without a search
// per hint; String checks each rule's hints again).
func hasHint(s string) bool {
	if mayHavePair(s) {
		return true
	}
	for i := 0; i+3 <= len(s); i++ {
		if h := tri(s[i], s[i+1], s[i+2]); hintTri[h>>6]&(1<<(h&63)) != 0 {
			return true
		}
	}
	return false
}

func tri(a, b, c byte) uint32 { return (uint32(a)*961 + uint32(b)*31 + uint32(c)) & 0xffff }

// hintTri is the set of the first three bytes of every rule's hints.
var hintTri = func() (set [1024]uint64) {
	for _, r := range stringRules {
		for _, h := range r.hints {
			t := tri(h[0], h[1], h[2])
			set[t>>6] |= 1 << (t & 63)
		}
	}
	return set
}()

func containsAny(s string, subs []string) bool {
	for _, h := range subs {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// maskPairs masks the values of the pairs and flags pairRe finds whose
// name looks secret.
func maskPairs(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range pairRe.FindAllStringSubmatchIndex(s, -1) {
		if m[0] < last {
			continue // inside a value already masked
		}
		dashes, name, sep := s[m[2]:m[3]], s[m[4]:m[5]], s[m[6]:m[7]]
		before := ""
		if m[0] > 0 {
			before = s[m[0]-1 : m[0]]
		}
		assign := strings.ContainsAny(sep, ":=")
		if !assign && dashes == "" {
			continue // "name value" is only a pair as a flag
		}
		if assign && strings.HasPrefix(sep, ":") && strings.HasPrefix(s[m[7]:], "//") {
			continue // a URL's scheme
		}
		terse := before == "?" || before == "&" || before == ";" || (assign && isUpperName(name))
		if !(LooksSecret(name) || (terse && LooksSecretEnv(name))) {
			continue
		}
		vs, ve := valueSpan(s, m[7])
		if ve <= vs {
			continue
		}
		b.WriteString(s[last:vs])
		b.WriteString(Mask)
		last = ve
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isUpperName(name string) bool {
	upper := false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z':
			return false
		case c >= 'A' && c <= 'Z':
			upper = true
		}
	}
	return upper
}

// valueSpan returns where the value starting at i ends: a quoted value
// (at any depth of escaping: ", \", \\\") runs to its closing quote, or to
// the end of the line when there is none; an unquoted one to white space
// or a delimiter. A scheme word (Bearer, Basic) takes the word after it
// too. A value that opens an object or array, or is already masked, is
// empty: what is inside is found on its own.
func valueSpan(s string, i int) (int, int) {
	rest := s[i:]
	q := 0
	for q < len(rest) && rest[q] == '\\' {
		q++
	}
	if q < len(rest) && (rest[q] == '"' || rest[q] == '\'') {
		quote := rest[:q+1]
		body := rest[q+1:]
		end := strings.Index(body, quote)
		if end < 0 {
			end = strings.IndexAny(body, "\r\n")
			if end < 0 {
				end = len(body)
			}
		}
		if strings.HasPrefix(body[:end], Mask) {
			return 0, 0
		}
		start := i + q + 1
		return start, start + end
	}
	if q > 0 || rest == "" || rest[0] == '{' || rest[0] == '[' || strings.HasPrefix(rest, Mask) {
		return 0, 0
	}
	end := unquotedEnd(rest)
	switch strings.ToLower(rest[:end]) {
	case "bearer", "basic", "token", "digest", "bot":
		after := strings.TrimLeft(rest[end:], " \t")
		if after == "" || strings.HasPrefix(after, Mask) {
			return 0, 0
		}
		end = len(rest) - len(after) + unquotedEnd(after)
	}
	return i, i + end
}

func unquotedEnd(s string) int {
	if e := strings.IndexAny(s, " \t\r\n&;,'\"\\)]}>"); e >= 0 {
		return e
	}
	return len(s)
}
