package redact

import (
	"strings"
	"unicode"
)

// directiveHints are what a directive's name holds (see directiveName):
// a text without one has no directive to mask.
var directiveHints = []string{"pass", "Pass", "PASS", "auth", "Auth", "AUTH", "secret", "Secret", "SECRET",
	"token", "Token", "TOKEN", "key", "Key", "KEY", "pwd", "PWD", "psk", "PSK", "cred", "Cred", "CRED"}

// maskDirectives masks the value of each line of s that is a
// configuration directive naming a secret, written as the name, blanks
// and the value: redis.conf's "requirepass pw" and "masterauth pw",
// msmtprc's "password pw", keepalived's "auth_pass pw", mosquitto's
// "remote_password pw"; and a Dockerfile's "ENV DB_PASS pw", whose value
// is the rest of the line. The line is the name and one value (a word,
// or a quoted string), maybe after cat -n's line number and before a "#"
// comment, and nothing else, so prose keeps its words ("the password is
// the same as before"); a commented-out line ("# requirepass foobared")
// is a comment. The value of a setting about a secret is kept: a yes or
// no ("PasswordAuthentication no"), and a name whose last word says what
// the setting is ("AuthType Basic", "password_file /etc/passwd"); so is
// a reference to a variable a template fills in ("requirepass
// ${REDIS_PASSWORD}", see varRef), and a line that says what happened to
// a credential ("Password expired", see statusPhrase) is a status, and
// secret or token before a word ("secret santa", see proseNounLine) is
// prose.
func maskDirectives(s string) string {
	var b strings.Builder
	last := 0
	for at := 0; at < len(s); {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		if vs, ve := directiveValue(s[at:end]); ve > vs {
			b.WriteString(s[last : at+vs])
			b.WriteString(Mask)
			last = at + ve
		}
		at = end + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// directiveValue returns the span of the secret value of line, a
// directive naming a secret (see maskDirectives), or an empty span.
func directiveValue(line string) (vs, ve int) {
	i := skipBlanks(line, 0)
	if n := skipDigits(line, i); n > i && n < len(line) && line[n] == '\t' {
		i = skipBlanks(line, n) // cat -n's "     3\t"
	} else if n > i && strings.HasPrefix(line[n:], "→") {
		i = skipBlanks(line, n+len("→"))
	}
	env := false
	if strings.HasPrefix(line[i:], "ENV ") || strings.HasPrefix(line[i:], "ENV\t") {
		env, i = true, skipBlanks(line, i+len("ENV")) // a Dockerfile's ENV NAME VALUE
	}
	ns := i
	if i >= len(line) || !(line[i] >= 'a' && line[i] <= 'z' || line[i] >= 'A' && line[i] <= 'Z') {
		return 0, 0 // a comment, a list item, a number: no directive
	}
	for i < len(line) && isNameByte(line[i]) {
		i++
	}
	ne := i
	if i = skipBlanks(line, i); i == ne || i >= len(line) {
		return 0, 0 // no blank after the name, or no value
	}
	vs = i
	switch {
	case env:
		// The value is the rest of the line, blanks and quotes included.
		ve = len(strings.TrimRight(line, " \t\r"))
		i = ve
	case line[i] == '"' || line[i] == '\'':
		k := closingQuote(line[i+1:], line[i], 0)
		if k < 0 {
			return 0, 0
		}
		vs, ve = i+1, i+1+k
		i = ve + 1
	default:
		for i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' {
			i++
		}
		ve = i
		if statusPhrase(line[ns:ne], line[vs:ve]) || proseNounLine(line[ns:ne], line[vs:ve]) {
			return 0, 0
		}
	}
	rest := strings.TrimRight(line[skipBlanks(line, i):], "\r")
	if rest != "" && (rest[0] != '#' || i == skipBlanks(line, i)) {
		return 0, 0 // more than one value, or text glued to it
	}
	v := line[vs:ve]
	if v == "" || v == Mask || isBoolean(v) || goType(v) || varRef(v) || strings.IndexByte("=:", v[0]) >= 0 || !directiveName(line[ns:ne]) {
		return 0, 0 // "secret = x" is a pair: maskPairs reads it
	}
	return vs, ve
}

// directiveName reports whether name, the first word of a directive,
// names a secret by its last word: a password's, a secret's, a token's
// or a key's (password, auth_pass, masterauth, HashedControlPassword,
// refresh_token, api_key). A setting about a secret ends in another word
// (PasswordAuthentication, AuthType, password_file), and words that name
// a secret only as a pair's name are also prose's or a program's
// (session, credentials, authorization, auth: "Session failure.",
// "auth required pam_unix.so"). A name in lower camel case is code's (a
// Go struct's field and its type: "pipedSecret finding").
func directiveName(name string) bool {
	if name[0] >= 'a' && name[0] <= 'z' && strings.ContainsFunc(name, unicode.IsUpper) || !LooksSecret(name) {
		return false
	}
	last := lastWord(name)
	switch last {
	case "auth", "authorization", "bearer", "jwt", "cred", "creds", "credential", "credentials",
		"cookie", "cookies", "session", "sessionid", "sessid", "dsn", "appid", "honeycombteam":
		return false
	case "key", "pass":
		return true
	}
	return LooksSecret(last)
}

// statusPhrase reports whether name and value, a line's two words, say
// what happened to a credential ("Password expired", "token revoked"): the
// name is a credential's noun alone, as prose writes it, and the value,
// unquoted, a word of a closed set of such happenings. A directive's name
// is a program's word (requirepass, masterauth, auth_pass, db_password),
// so its value is masked whatever it reads like ("requirepass
// foobared"), and so is a word not in the set after the noun.
func statusPhrase(name, value string) bool {
	switch strings.ToLower(name) {
	case "password", "passwd", "passphrase", "passcode", "pin", "secret", "token":
	default:
		return false
	}
	switch strings.ToLower(value) {
	case "required", "needed", "expired", "expires", "changed", "updated", "reset", "set", "unset", "saved",
		"stored", "cleared", "removed", "deleted", "created", "generated", "rotated", "revoked", "refreshed",
		"accepted", "rejected", "denied", "verified", "incorrect", "invalid", "wrong", "missing", "mismatch",
		"locked", "unlocked", "ok", "valid", "empty":
		return true
	}
	return false
}

// proseNounLine reports whether name and value, a line's two words, are
// prose rather than a directive: the name is secret or token alone, nouns
// English puts before another ("secret santa", "token ring"), and the
// value, unquoted, does not look like a credential (credentialLike).
// A password's word is a directive's (msmtprc's "password pw") whatever
// its value reads like, as is a program's name (requirepass, api_token).
func proseNounLine(name, value string) bool {
	switch strings.ToLower(name) {
	case "secret", "token":
		return !credentialLike(value)
	}
	return false
}

// goType reports whether v is how Go code writes a type after a field's
// name (token string, secret []byte, token *oauth2.Token): a struct
// field, not a directive.
func goType(v string) bool {
	switch v {
	case "string", "[]byte", "byte", "[]string", "bool", "int", "int64", "uint64", "any", "error":
		return true
	}
	return v[0] == '*' || strings.HasPrefix(v, "[]") || strings.HasPrefix(v, "map[") || strings.HasPrefix(v, "func(")
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
