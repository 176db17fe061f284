package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

var errSyntax = errors.New("redact: arguments are not valid JSON")

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 10000

// rewriter walks JSON bytes once, copying them lazily: out stays nil until
// the first value is masked, so arguments with nothing to hide cost no
// allocation.
type rewriter struct {
	in        []byte
	i         int
	out       []byte
	last      int // in[last:] has not been copied to out yet
	heuristic bool
	depth     int
	found     *[]string // SecretValues: the masked values are collected here
}

func (w *rewriter) skipWS() {
	for w.i < len(w.in) {
		switch w.in[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// mask replaces in[start:w.i] by the mask.
func (w *rewriter) mask(start int) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.in)+16)
	}
	w.out = append(w.out, w.in[w.last:start]...)
	w.out = append(w.out, maskJSON...)
	w.last = w.i
}

// value parses one value at w.i; n is the path node that applies to it
// (nil: only the key heuristic applies below).
func (w *rewriter) value(n *node) error {
	if w.i >= len(w.in) {
		return errSyntax
	}
	switch c := w.in[w.i]; c {
	case '{':
		return w.object(n)
	case '[':
		return w.array(n)
	case '"':
		start := w.i
		content, err := w.str()
		if err != nil || !w.heuristic {
			return err
		}
		text, nested := content, w.nested(content)
		if nested != nil {
			text = nested
		} else if !hasHint(string(content)) {
			return nil
		}
		red := string(text)
		if hasHint(red) {
			red = stringRules(red)
		}
		if red != string(content) {
			if w.found != nil {
				*w.found = append(*w.found, maskedParts(string(text), red)...)
			}
			// A secret inside the string: rewrite the string, the rest kept.
			if w.out == nil {
				w.out = make([]byte, 0, len(w.in)+16)
			}
			w.out = append(w.out, w.in[w.last:start]...)
			enc, _ := json.Marshal(red)
			w.out = append(w.out, enc...)
			w.last = w.i
		}
		return nil
	default:
		start := w.i
		for w.i < len(w.in) {
			switch w.in[w.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				goto done
			}
			w.i++
		}
	done:
		if w.i == start {
			return errSyntax
		}
		lit := w.in[start:w.i]
		switch string(lit) {
		case "true", "false", "null":
			return nil
		}
		if !json.Valid(lit) {
			return errSyntax
		}
		return nil
	}
}

// nested returns the JSON document a string holds ({"password": {...}}
// or an argv array written into a "data" or "body" string) with the
// rewriter's rules applied to it, as a value of its own would have them;
// nil when the string holds no object or array, or nothing in it is
// masked. A document nested too deep is masked whole (fail safe).
func (w *rewriter) nested(content []byte) []byte {
	t := bytes.TrimLeft(content, " \t\r\n")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') || !json.Valid(content) {
		return nil
	}
	r := rewriter{in: content, heuristic: true, depth: w.depth, found: w.found}
	r.skipWS()
	if r.value(nil) != nil {
		if w.found != nil {
			leaves(content, w.found)
		}
		return []byte(Mask)
	}
	if r.out == nil {
		return nil
	}
	return append(r.out, content[r.last:]...)
}

// maskedValue parses a value and masks it, unless it is null.
func (w *rewriter) maskedValue() error {
	start := w.i
	if err := w.skipValue(); err != nil {
		return err
	}
	if string(w.in[start:w.i]) != "null" {
		w.mask(start)
		w.collect(start, w.i)
	}
	return nil
}

// collect records the values in in[start:end] for SecretValues.
func (w *rewriter) collect(start, end int) {
	if w.found != nil {
		leaves(w.in[start:end], w.found)
	}
}

func (w *rewriter) skipValue() error {
	// Parsing with no node and no heuristic only validates and skips.
	h := w.heuristic
	w.heuristic = false
	err := w.value(nil)
	w.heuristic = h
	return err
}

func (w *rewriter) enter() error {
	w.depth++
	if w.depth > maxDepth {
		return errSyntax
	}
	return nil
}

func (w *rewriter) object(n *node) error {
	if err := w.enter(); err != nil {
		return err
	}
	defer func() { w.depth-- }()
	w.i++ // '{'
	var pair pairState
	w.skipWS()
	if w.i < len(w.in) && w.in[w.i] == '}' {
		w.i++
		return nil
	}
	for {
		w.skipWS()
		if w.i >= len(w.in) || w.in[w.i] != '"' {
			return errSyntax
		}
		keyStart := w.i
		key, err := w.str()
		if err != nil {
			return err
		}
		if w.heuristic && (len(key) >= minKeySecret || bytes.ContainsAny(key, "=: ：＝")) {
			w.maskInKey(keyStart, key)
		}
		w.skipWS()
		if w.i >= len(w.in) || w.in[w.i] != ':' {
			return errSyntax
		}
		w.i++
		w.skipWS()
		var child *node
		if n != nil {
			if c, ok := n.children[string(key)]; ok {
				child = c
			} else {
				child = n.anyKey
			}
		}
		role := pairNone
		if w.heuristic {
			role = pairRole(key)
		}
		if (child != nil && child.leaf) || (w.heuristic && looksSecretKey(key) && !w.passBoolean(key)) || (role == pairValue && pair.named) {
			err = w.maskedValue()
		} else {
			start := w.i
			err = w.value(child)
			switch {
			case err != nil:
			case role == pairName:
				if c, ok := strContent(w.in[start:w.i]); ok && looksSecretKey(c) {
					pair.named = true
					if pair.hasValue {
						err = w.maskLater(pair.start, pair.end)
					}
				}
			case role == pairValue:
				pair.hasValue, pair.start, pair.end = true, start, w.i
			}
		}
		if err != nil {
			return err
		}
		if done, err := w.sep('}'); done || err != nil {
			return err
		}
	}
}

// minKeySecret is the shortest key the string rule is run on when it holds
// no "=", ":" or blank: shorter than the shortest key shape (a Slack
// token, 15 bytes), longer than the names keys are (auth, token, api_key,
// access_token), so that they cost nothing.
const minKeySecret = 15

// maskInKey rewrites the key in[start:w.i], whose text is key, with the
// secrets the string rule finds in it masked (a URL's password, a token:
// a map keyed by remote or by token), the rest of the key kept. Its name
// is judged as it was written (LooksSecret).
func (w *rewriter) maskInKey(start int, key []byte) {
	s := string(key)
	if !hasHint(s) {
		return
	}
	red := stringRules(s)
	if red == s {
		return
	}
	if w.found != nil {
		*w.found = append(*w.found, maskedParts(string(key), red)...)
	}
	if w.out == nil {
		w.out = make([]byte, 0, len(w.in)+16)
	}
	w.out = append(w.out, w.in[w.last:start]...)
	enc, _ := json.Marshal(red)
	w.out = append(w.out, enc...)
	w.last = w.i
}

// sep consumes what follows a member or an element: a comma, or closing
// (done). Anything else is a syntax error.
func (w *rewriter) sep(closing byte) (done bool, err error) {
	w.skipWS()
	if w.i >= len(w.in) {
		return false, errSyntax
	}
	switch w.in[w.i] {
	case ',':
		w.i++
		return false, nil
	case closing:
		w.i++
		return true, nil
	}
	return false, errSyntax
}

func (w *rewriter) array(n *node) error {
	if err := w.enter(); err != nil {
		return err
	}
	defer func() { w.depth-- }()
	open, outAt, lastAt := w.i, len(w.out), w.last
	w.i++ // '['
	w.skipWS()
	if w.i < len(w.in) && w.in[w.i] == ']' {
		w.i++
		return nil
	}
	var el *node
	if n != nil {
		el = n.elem
	}
	// An array of strings may be a command line (argv): when one of its
	// words holds a hint of a string rule (curl, mysql, login, ...), the
	// words are judged again together (argv, below).
	argv, hinted := w.heuristic, false
	var maskedAt []int  // the elements masked whole
	nameBefore := false // the element before names a secret: mask this one
	for idx := 0; ; idx++ {
		w.skipWS()
		start := w.i
		var err error
		if (el != nil && el.leaf) || nameBefore {
			err = w.maskedValue()
			nameBefore = false
			maskedAt = append(maskedAt, idx)
		} else {
			err = w.value(el)
			if err == nil && w.heuristic {
				c, ok := strContent(w.in[start:w.i])
				nameBefore = ok && namesNext(c, idx == 0)
				argv, hinted = argv && ok, hinted || (ok && ruleHint(c))
			}
		}
		if err != nil {
			return err
		}
		if done, err := w.sep(']'); done || err != nil {
			if err == nil && argv && hinted && idx > 0 {
				w.argv(open, outAt, lastAt, maskedAt)
			}
			return err
		}
	}
}

// argv judges the array of strings in[open:w.i] as the command line its
// words spell, so that a password split from its flag (["curl", "-u",
// "me:pw"]) is found. When that masks something, the array is written again
// from its words as masked; outAt and lastAt are len(out) and last when the
// array began, maskedAt the elements already masked whole.
func (w *rewriter) argv(open, outAt, lastAt int, maskedAt []int) {
	var elems []json.RawMessage
	if json.Unmarshal(w.in[open:w.i], &elems) != nil {
		return
	}
	words := make([]string, len(elems))
	for i, e := range elems {
		// maskedAt ascends: its head is the next element masked whole (a
		// search of it for each word was quadratic, 9.8 s for 161,318
		// words of --password x).
		masked := len(maskedAt) > 0 && maskedAt[0] == i
		if masked {
			maskedAt = maskedAt[1:]
		}
		if masked || json.Unmarshal(e, &words[i]) != nil {
			words[i] = Mask
		}
	}
	line := make([]string, len(words))
	for i, s := range words {
		judged := s
		if s != Mask && hasHint(s) {
			judged = String(s) // as value judged it alone
		}
		words[i] = judged
		// A word's blanks, quotes and shell separators stand in the line
		// as letters of their own (the word is one argument, whatever it
		// holds: ["curl", "-u", "me:pass word"]), given back after. A word
		// that holds a secret masked on its own ("Authorization: Bearer
		// ..."), or none, stands as one neutral word.
		line[i] = argvHide.Replace(judged)
		if judged == "" || (judged != s && line[i] != judged) {
			line[i] = "_"
		}
	}
	joined := strings.Join(line, " ")
	red := String(joined)
	if red == joined {
		return
	}
	parts := strings.Split(red, " ")
	if len(parts) != len(line) {
		// A rule took blanks with the secret (a Cookie header's value):
		// mask every word between the line's unchanged start and end.
		i, j := 0, 0
		for i < len(parts) && i < len(line) && parts[i] == line[i] {
			i++
		}
		for j < len(parts)-i && j < len(line)-i && parts[len(parts)-1-j] == line[len(line)-1-j] {
			j++
		}
		parts = slices.Concat(line[:i], slices.Repeat([]string{Mask}, len(line)-i-j), line[len(line)-j:])
	}
	for i := range words {
		if parts[i] != line[i] {
			before := words[i]
			words[i] = argvShow.Replace(parts[i])
			if w.found != nil {
				*w.found = append(*w.found, maskedParts(before, words[i])...)
			}
		}
	}
	// Write the array again: out back to where it stood before it (when
	// value rewrote one of its elements, out holds in[lastAt:open] and
	// that element), then the array.
	if w.out == nil {
		w.out = make([]byte, 0, len(w.in)+16)
	}
	if w.last > open {
		w.out = w.out[:outAt+open-lastAt]
	} else {
		w.out = append(w.out, w.in[w.last:open]...)
	}
	enc, _ := json.Marshal(words)
	w.out = append(w.out, enc...)
	w.last = w.i
}

// maskedParts returns the parts of orig that red, orig with spans masked,
// replaced by the mask: the secrets found inside a string, for
// SecretValues.
func maskedParts(orig, red string) []string {
	var out []string
	segs := strings.Split(red, Mask)
	if !strings.HasPrefix(orig, segs[0]) {
		return nil
	}
	pos := len(segs[0])
	for i, seg := range segs[1:] {
		k := strings.Index(orig[pos:], seg)
		if i == len(segs)-2 {
			k = len(orig) - pos - len(seg) // the last one ends the string
		}
		if k < 0 || !strings.HasPrefix(orig[pos+k:], seg) {
			return out
		}
		if k > 0 {
			out = append(out, orig[pos:pos+k])
		}
		pos += k + len(seg)
	}
	return out
}

// argvHide writes an argv word's blanks, quotes and shell separators as
// private-use letters, so that the command line the words spell splits
// back into the same words and no rule stops inside one; argvShow undoes
// it.
var (
	argvHide = strings.NewReplacer(" ", "\uE000", "\t", "\uE001", "\r", "\uE002", "\n", "\uE003",
		"'", "\uE004", `"`, "\uE005", "|", "\uE006", ";", "\uE007", "&", "\uE008")
	argvShow = strings.NewReplacer("\uE000", " ", "\uE001", "\t", "\uE002", "\r", "\uE003", "\n",
		"\uE004", "'", "\uE005", `"`, "\uE006", "|", "\uE007", ";", "\uE008", "&")
)

// str parses a string at w.i and returns its decoded content (the raw bytes
// when it has no escapes, so the common case does not allocate).
func (w *rewriter) str() ([]byte, error) {
	start := w.i
	w.i++ // '"'
	escaped := false
	for w.i < len(w.in) {
		switch c := w.in[w.i]; {
		case c == '\\':
			escaped = true
			w.i += 2
			continue
		case c == '"':
			w.i++
			raw := w.in[start:w.i]
			if !escaped {
				return raw[1 : len(raw)-1], nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, errSyntax
			}
			return []byte(s), nil
		case c < 0x20:
			return nil, errSyntax
		}
		w.i++
	}
	return nil, errSyntax
}

// A name/value pair written as an object ({"name": "Authorization",
// "value": "..."}: HTTP headers in HAR and Postman, Kubernetes env, query
// parameters) hides the secret's name in a value: when the "name" or "key"
// member looks secret, the "value" member is masked, whichever comes first.
type pairState struct {
	named      bool // the name member looks secret
	hasValue   bool // the value member was seen, at in[start:end]
	start, end int
}

const (
	pairNone = iota
	pairName
	pairValue
)

func pairRole(key []byte) int {
	switch {
	case len(key) == 4 && strings.EqualFold(string(key), "name"),
		len(key) == 3 && strings.EqualFold(string(key), "key"):
		return pairName
	case len(key) == 5 && strings.EqualFold(string(key), "value"):
		return pairValue
	}
	return pairNone
}

// maskLater masks in[start:end], a value already parsed. That is only
// possible while nothing at or after start has been copied; otherwise the
// whole arguments fail safe.
func (w *rewriter) maskLater(start, end int) error {
	if string(w.in[start:end]) == "null" {
		return nil
	}
	if w.last > start {
		return errSyntax
	}
	if w.out == nil {
		w.out = make([]byte, 0, len(w.in)+16)
	}
	w.out = append(w.out, w.in[w.last:start]...)
	w.out = append(w.out, maskJSON...)
	w.last = end
	w.collect(start, end)
	return nil
}

// namesNext reports whether an array element names a secret that the next
// element holds: a flag (["--password", "..."], argv) or, as the first
// element, a header name (["X-Api-Key", "..."]).
func namesNext(s []byte, first bool) bool {
	if len(s) == 0 || len(s) > 128 || (!first && s[0] != '-') || bytes.ContainsAny(s, "=:\t\r\n") {
		return false // not a name; or a whole pair, which the string rule sees
	}
	if name := bytes.TrimLeft(s, "-"); len(name) != len(s) {
		return len(name) > 0 && LooksSecret(string(name))
	}
	return looksSecretKey(s)
}

// looksSecretKey is the name rule for a name written as a JSON key or
// value: LooksSecret, or, for an upper-case environment name (NPM_PASS,
// DB_PASS in an "env" object), LooksSecretEnv, as String judges NAME=value;
// or pass: a key names what it holds, where in prose pass is a word.
func looksSecretKey(name []byte) bool {
	return LooksSecret(string(name)) || (isUpperName(string(name)) && LooksSecretEnv(string(name))) ||
		bytes.EqualFold(name, []byte("pass"))
}

// passBoolean reports whether the value at w.i is true or false and key's
// last word is pass: a test's result ({"pass": true}), as String keeps
// "pass: true".
func (w *rewriter) passBoolean(key []byte) bool {
	rest := w.in[w.i:]
	return (bytes.HasPrefix(rest, []byte("true")) || bytes.HasPrefix(rest, []byte("false"))) && endsInPass(string(key))
}

// strContent returns the text of a JSON string token (without copying when
// it has no escapes), or false when raw is not a string.
func strContent(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}
