package redact

import "strings"

// netrcHints are the words a .netrc entry begins with.
var netrcHints = []string{"machine", "default"}

// netrcEntry is one .netrc entry found in a text: "machine HOST" or
// "default", then login, account, port and password tokens with their
// values, in any order, over any lines (netrc(5); curl's and Python's
// readers also skip "#" comments among them and read a value quoted with
// "..." and backslash escapes). The entry ends at the first other token.
type netrcEntry struct {
	start, end int      // from its first keyword to its last value's end
	secrets    [][2]int // the values of its password and account tokens
	login      bool     // it has a login or password token
	open       bool     // the text ends inside it: more of it may follow
}

// maskNetrc masks the password and account values of each .netrc entry in
// s. An account is "an additional account password" (netrc(5)); it is
// masked only in an entry with a login or a password, so that prose with
// the words machine and account keeps its words.
func maskNetrc(s string) string {
	var b strings.Builder
	last := 0
	netrcScan(s, func(e netrcEntry) {
		if !e.login {
			return
		}
		for _, v := range e.secrets {
			if s[v[0]:v[1]] == Mask {
				continue
			}
			b.WriteString(s[last:v[0]])
			b.WriteString(Mask)
			last = v[1]
		}
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// openNetrcEntry returns where the .netrc entry that s ends inside begins
// (its password may be on a line still to come), or -1.
func openNetrcEntry(s string) int {
	at := -1
	netrcScan(s, func(e netrcEntry) {
		if e.open {
			at = e.start
		}
	})
	return at
}

// netrcSearched, when a test sets it, counts the bytes netrcScan's
// searches for an entry's first word look at: the near-miss cost test
// bounds it, as a count a busy machine's clock cannot blur.
var netrcSearched *int

// netrcScan calls f with each entry of s, in order. It is one pass: an
// entry's tokens are read once, and the search goes on after them.
func netrcScan(s string, f func(netrcEntry)) {
	m, d := -1, -1 // the next "machine" and "default" at or after i, once found
	for i := 0; i < len(s); {
		if m < i {
			if m = strings.Index(s[i:], "machine"); m >= 0 {
				m += i
			} else {
				m = len(s)
			}
			if netrcSearched != nil {
				*netrcSearched += m - i
			}
		}
		if d < i {
			if d = strings.Index(s[i:], "default"); d >= 0 {
				d += i
			} else {
				d = len(s)
			}
			if netrcSearched != nil {
				*netrcSearched += d - i
			}
		}
		start := min(m, d)
		if start == len(s) {
			return
		}
		// Right after the tokens of an entry before it, on the same line.
		after := start == i
		i = start + len("machine") // as long as "default"
		if (start > 0 && isWordByte(s[start-1])) || (i < len(s) && isWordByte(s[i])) {
			continue
		}
		if start == d && !after && !netrcLineStart(s, start) {
			continue // prose's default: "By default password authentication is off"
		}
		e := netrcEntry{start: start, end: i}
		if start == m {
			vs, ve := netrcValue(s, i)
			if ve == len(s) {
				e.open = true
				f(e)
				return
			}
			if netrcKeyword(s[vs:ve]) {
				continue // prose's machine: "the machine login password is ..."
			}
			e.end = ve
		}
		i = netrcTokens(s, &e)
		f(e)
	}
}

// netrcLineStart reports whether the "default" at i begins an entry
// where a .netrc's text has one: first on its line (after blanks, cat
// -n's number, a "#", a quote, an escaped "\n"), not after a word of
// prose ("By default", "the default", "In general, default").
func netrcLineStart(s string, i int) bool {
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	if i >= 2 && s[i-2] == '\\' && (s[i-1] == 'n' || s[i-1] == 't' || s[i-1] == 'r') {
		return true // JSON's or printf's escaped line break or tab
	}
	if i == 0 {
		return true
	}
	c := s[i-1]
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ',' || c == '.')
}

// netrcKeyword reports whether w is a .netrc token's keyword: a machine's
// name is not one.
func netrcKeyword(w string) bool {
	switch w {
	case "machine", "default", "login", "password", "account", "port", "macdef":
		return true
	}
	return false
}

// netrcTokens reads e's keyword and value pairs after e.end and returns
// where the search for the next entry goes on.
func netrcTokens(s string, e *netrcEntry) int {
	for {
		ks := netrcGap(s, e.end)
		ke := ks
		for ke < len(s) && !isSpace(s[ke]) {
			ke++
		}
		if ke == len(s) {
			e.open = true // the text ends before the next token, or inside it
			return len(s)
		}
		switch kw := s[ks:ke]; kw {
		case "login", "account", "port", "password":
			vs, ve := netrcValue(s, ke)
			if vs < ve && (kw == "password" || kw == "account") {
				e.secrets = append(e.secrets, [2]int{vs, ve})
			}
			e.login = e.login || kw == "login" || kw == "password"
			if ve == len(s) {
				e.open = true // the value may go on in text still to come
				return len(s)
			}
			e.end = ve
		default:
			return ks // another token (a machine, a macdef, a word): the entry ended
		}
	}
}

// netrcGap returns where the next token after i begins: past blanks,
// line breaks and "#" comments (to their line's end). A comment with an
// entry's first word in it is a token, so the entry ends there and the
// search finds the entry in it (a commented-out entry keeps a password
// too); it also keeps the search one pass over s.
func netrcGap(s string, i int) int {
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) || s[i] != '#' {
			return i
		}
		n := strings.IndexByte(s[i:], '\n')
		if n < 0 {
			n = len(s) - i
		}
		if containsAny(s[i:i+n], netrcHints) {
			return i
		}
		i += n
	}
}

// netrcValue returns the span of the value after a keyword at i: past
// blanks and line breaks, a word, or a quoted string with its quotes (to
// its closing quote past backslash escapes, or to the line's end). It is
// empty at len(s) when the text ends first.
func netrcValue(s string, i int) (vs, ve int) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	switch {
	case j == len(s):
	case s[j] == '"':
		for j++; j < len(s) && s[j] != '"' && s[j] != '\n' && s[j] != '\r'; j++ {
			if s[j] == '\\' && j+1 < len(s) && s[j+1] != '\n' && s[j+1] != '\r' {
				j++
			}
		}
		if j < len(s) && s[j] == '"' {
			j++
		}
	default:
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
	}
	return i, j
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isWordByte reports whether c is an ASCII letter, digit or "_": a word's
// byte as regexp's \b sees it.
func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
