package redact

import "strings"

// maskProse masks secrets written in a sentence, which maskPairs and
// maskDirectives do not read: a secret's noun, then "is" or "was" (a
// ":" may follow), then the value ("the password is hunter2xyz", "my
// token was: abc123def"); a noun of two words written apart before ":"
// or "=" ("api key = abcd1234efgh", "Access Key: ..."); and a
// password's word followed by the value on the same line ("log in with
// passwd hunter2xyz"). A noun is the last word before "is", judged by
// LooksSecret (password, passwd, secret, token, apikey, credentials,
// ...; "password field" and "token count" are not), or key after a word
// that makes it one (api, access, secret, private, ...).
//
// Prose says "the password is required" as often as it gives one, and
// code says "password []byte", so a value is masked only when it looks
// like a credential (see credentialLike): 6 bytes or more, with a digit
// or a symbol in it; a word up to a blank, or a quoted text ("is
// 'Tr0ub4dor&3'", "is `hunter2xyz`"). A value of letters only ("the
// password is hunter", a passphrase of words) is not told from prose and
// stays.
//
// It is one pass over s: each word is looked at once, and a noun only
// when the word after it is a copula or a separator.
func maskProse(s string) string {
	var b strings.Builder
	last := 0
	// The spans of the word before the current one and of the word
	// before that; -1 when there is none.
	var p1s, p1e, p2s, p2e int = -1, -1, -1, -1
	for i := 0; i < len(s); {
		if !isProseWordByte(s[i]) {
			i++
			continue
		}
		ws := i
		for i < len(s) && isProseWordByte(s[i]) {
			i++
		}
		we := i
		if s[ws] == '-' || ws > 0 && (s[ws-1] == '$' || s[ws-1] == '/') {
			// A flag (maskPairs reads it), a variable, a path's part:
			// not a word of prose.
			p2s, p2e, p1s, p1e = -1, -1, -1, -1
			continue
		}
		vs, ve := -1, -1
		w := s[ws:we]
		switch {
		case copula(w) && p1s >= 0 && blanksOnly(s[p1e:ws]) && proseNoun(s, p2s, p2e, p1s, p1e):
			// "the password is VALUE", "the token was: VALUE".
			at := skipBlanks(s, we)
			if at < len(s) && s[at] == ':' {
				at = skipBlanks(s, at+1)
			}
			if at > we {
				vs, ve = proseValue(s, at)
			}
		case strings.EqualFold(w, "key") && p1s >= 0 && blanksOnly(s[p1e:ws]) && LooksSecret(s[p1s:p1e]+" key"):
			// "api key = VALUE", "Access Key: VALUE": a name maskPairs
			// does not see, as it reads one word before the separator.
			at := skipBlanks(s, we)
			if at < len(s) && (s[at] == ':' || s[at] == '=') && !strings.HasPrefix(s[at:], "==") && !strings.HasPrefix(s[at:], ":=") {
				vs, ve = proseValue(s, skipBlanks(s, at+1))
			}
		case passwordWord(w) && we < len(s) && (s[we] == ' ' || s[we] == '\t') && (ws == 0 || strings.IndexByte(" \t\r\n(", s[ws-1]) >= 0):
			// "use password VALUE": the value right after the word, a
			// word of prose (not a flag's placeholder, --password=PASSWORD),
			// and not a flag after it.
			if at := skipBlanks(s, we); at < len(s) && !isQuote(s[at]) && s[at] != '-' {
				vs, ve = proseValue(s, at)
			}
		}
		if ve > vs && vs >= last {
			b.WriteString(s[last:vs])
			b.WriteString(Mask)
			last = ve
			i = ve
			p2s, p2e, p1s, p1e = -1, -1, -1, -1
			continue
		}
		p2s, p2e, p1s, p1e = p1s, p1e, ws, we
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// isProseWordByte reports whether c is part of a word of prose or of a
// name written in it (API_KEY, api-key): an ASCII letter, digit, "_" or
// "-".
func isProseWordByte(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isQuote(c byte) bool { return c == '\'' || c == '"' || c == '`' }

// blanksOnly reports whether gap, the text between two words, is one or
// more spaces or tabs.
func blanksOnly(gap string) bool {
	if gap == "" {
		return false
	}
	for i := 0; i < len(gap); i++ {
		if gap[i] != ' ' && gap[i] != '\t' {
			return false
		}
	}
	return true
}

// copula reports whether w is "is" or "was", in lower, title or upper
// case.
func copula(w string) bool {
	switch w {
	case "is", "Is", "IS", "was", "Was", "WAS":
		return true
	}
	return false
}

// passwordWord reports whether w is a password's own word (password,
// passphrase), in lower, title or upper case: the words after which a
// value needs no "is". passwd and pwd are commands too, whose argument
// is a user ("sudo passwd alice01", "getent passwd bob2") or a path.
func passwordWord(w string) bool {
	switch strings.ToLower(w) {
	case "password", "passphrase":
		return true
	}
	return false
}

// proseNoun reports whether the word s[s1:e1] (after s[s2:e2], -1 when
// none) is a secret's noun: it looks secret itself (password, token,
// API_KEY), or it is key after a word that makes it one ("api key",
// "access key").
func proseNoun(s string, s2, e2, s1, e1 int) bool {
	w := s[s1:e1]
	if LooksSecret(w) {
		return true
	}
	return strings.EqualFold(w, "key") && s2 >= 0 && blanksOnly(s[e2:s1]) && LooksSecret(s[s2:e2]+" key")
}

// proseValue returns the span of the value that starts at at: a quoted
// one's text (to its closing quote on the line; empty when there is
// none), or an unquoted word without the punctuation that ends a
// sentence after it, when it looks like a credential. An empty span when
// there is no such value.
func proseValue(s string, at int) (int, int) {
	if at >= len(s) {
		return 0, 0
	}
	if q := s[at]; isQuote(q) {
		end := strings.IndexByte(s[at+1:], q)
		if end <= 0 {
			return 0, 0
		}
		v := s[at+1 : at+1+end]
		if strings.ContainsAny(v, "\r\n") || !credentialLike(v) {
			return 0, 0
		}
		return at + 1, at + 1 + end
	}
	end := at
	for end < len(s) && s[end] != ' ' && s[end] != '\t' && s[end] != '\r' && s[end] != '\n' {
		end++
	}
	if strings.HasPrefix(s[at:], Mask) || varRef(s[at:end]) {
		return 0, 0 // masked already, or a variable named: ${DB_PASSWORD}
	}
	for end > at && strings.IndexByte(".,;:)]}'\"`?!", s[end-1]) >= 0 {
		end-- // the sentence's punctuation after the value ("again?")
	}
	if !credentialLike(s[at:end]) {
		return 0, 0
	}
	return at, end
}

// credentialLike reports whether v, a word of prose (or a quoted text),
// looks like a credential rather than a word or code: 6 bytes or more,
// with a digit or a symbol other than the "." "_" "-" and "'" that join
// words and names in it (hunter2xyz, S3cr3t!, 20240101). A word of
// letters (required, Expired, hunter, VerifyClientCert), a name in code
// (invalid_grant, token.EOF, *ed25519.PrivateKey, []byte, getpw_r(), a
// reference to a variable ($DB_PASSWORD), a URL (its password is the URL
// rule's), a mask, a hyphenated adjective (base64-encoded, 256-bit) and
// a hash's or an encoding's name (sha256, base64) are not.
func credentialLike(v string) bool {
	if len(v) < 6 || strings.HasPrefix(v, Mask) || varRef(v) || strings.Contains(v, "://") ||
		strings.IndexByte("*&[(<{", v[0]) >= 0 {
		return false
	}
	var digit, symbol bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', strings.IndexByte("._-' \t/\\", c) >= 0:
			// Letters, and what joins words in prose, names in code and
			// markup's escapes (and/or, troff's \&): no credential's sign.
		case c == '(' || c == '[':
			if i > 0 && isProseWordByte(v[i-1]) {
				return false // a call or an index: getpwnam_r(, args[i]
			}
			symbol = true
		case c >= 0x80:
			return false // a word of another script: prose
		default:
			symbol = true
		}
	}
	if !digit && !symbol {
		return false
	}
	if k := strings.LastIndexByte(v, '-'); k >= 0 && proseSuffix(v[k+1:]) {
		return false
	}
	switch strings.ToLower(v) {
	case "sha256", "sha512", "sha384", "sha224", "base64", "base32", "argon2", "argon2i", "argon2d", "argon2id",
		"pbkdf2", "sha-256", "sha-512", "sha3-256", "sha3-512", "hs256", "hs512", "rs256", "rs512", "es256", "ed25519":
		return false
	}
	return true
}

// proseSuffix reports whether w, the last part of a hyphenated word, makes
// it an adjective (base64-encoded, SHA256-hashed, 256-bit, HMAC-based).
func proseSuffix(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "ed") {
		return true
	}
	switch w {
	case "bit", "bits", "byte", "bytes", "char", "chars", "characters", "digit", "digits", "based", "only",
		"long", "like", "style", "safe", "wide", "free", "aware", "specific", "compatible", "scoped":
		return true
	}
	return false
}
