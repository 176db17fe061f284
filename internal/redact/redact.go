// Package redact masks secret values in a call's JSON arguments before the
// SDK writes them anywhere (logs, audit trails, events).
//
// It holds the project's one redaction rule, used for logs, audit
// records, events, error messages and the sandbox's environment. Three
// things are redacted:
//
//  1. The fields a tool declares secret in tool.Spec.Secrets (filled from
//     `toolbelt:"secret"` struct tags by tool.Func, and from tool.WithSecrets
//     for raw-schema tools).
//  2. By default, any object key whose name looks like a secret (see
//     LooksSecret), at any depth: password, pwd, token, secret, auth,
//     authorization, cookie, session, dsn, api/private/ssh key, credential(s);
//     an upper-case environment name by LooksSecretEnv (NPM_PASS, DB_PASS).
//  3. By default, secrets inside any string value, and inside object keys
//     (a map keyed by remote URL or by token), (see String): passwords in
//     URLs, Authorization and Cookie headers, bearer and basic credentials,
//     name=value and name: value pairs and --name flags with secret names
//     (JSON inside a string included: an object or array a string holds is
//     judged as arguments of its own), private key blocks (also
//     base64-encoded, as a kubeconfig's client-key-data, and the tail of
//     a PEM, ssh.com or PuTTY key file without its first line, as "tail
//     key.pem" prints it; a Stream
//     may show such a tail's lines before the END line that marks them
//     comes), passwords on
//     common clients' command lines (curl -u user:pw, mysql -ppw, sshpass
//     -p, redis-cli -a, docker login -p, az/oc/cf login -p, openssl -pass
//     pass:pw, keytool -storepass, ldapsearch -w, sqlcmd -P, smbclient -U
//     user%pw, zip -P, 7z -ppw, sqlplus user/pw@db, ssh-keygen -N/-P,
//     htpasswd -b's last word, Redis's CONFIG SET requirepass and AUTH;
//     bash's $'...' and backslash-escaped values; a command or a --name flag continued
//     over lines with "\" or PowerShell's "`" is read as one line), SQL
//     (PASSWORD 'pw', IDENTIFIED BY pw, SQLCipher's PRAGMA key = 'pw'
//     and ATTACH ... KEY 'pw'), .netrc entries (password and
//     account, over lines, "#" comments among them), the password of a
//     PostgreSQL password file's line (host:port:db:user:pw), a
//     configuration line of a secret's name, blanks and one value
//     (redis.conf's "requirepass pw", msmtprc's "password pw";
//     "PasswordAuthentication no" is a setting), XML elements with a
//     secret name (<password>pw</password>; one not closed, to the end of
//     the text, as a key block with no END line), values written below their
//     YAML name ("password: |" and indented lines, blank lines among
//     them), a secret in a sentence (a secret's noun, then "is", "was",
//     ":" or "=", then a value of 6 bytes or more with a digit or a
//     symbol in it: "the password is hunter2xyz", "api key = abcd1234efgh",
//     "use password S3cr3t!x"), and the key shapes of AWS (with the
//     secret key written after its key id, as the console's CSV has it),
//     GitHub, OpenAI, Anthropic, Slack and others. Only the secret part of
//     the string is masked.
//  4. By default, values whose secret name is itself a value: the "value"
//     of an object whose "name" or "key" looks secret ({"name":
//     "Authorization", "value": "..."}; in a string too, the value pair
//     just after the name pair: YAML's "- name: DB_PASSWORD" and "value:
//     ..." on the next line, a plan's name = and value =, --name N --value
//     V; not a value written before its name), the element after a secret flag in
//     an array (["--password", "..."]) and the second element of an array
//     whose first is a secret name (["X-Api-Key", "..."]). An array of
//     strings that holds a command (curl, mysql, sshpass, ...) is also
//     judged as the command line it spells (["curl", "-u", "me:pw"]).
//
// What it cannot see: a secret under a name that says nothing and in no
// known shape (a positional password: "openssl passwd -6 pw"), a secret
// in a sentence that reads as a word (letters only: "the password is
// hunter", a passphrase of words) or that is not right after its noun's
// "is" ("the password for the db is ..."), and a
// secret encoded in the arguments (base64, percent-encoded, split across
// strings). Declare such fields in Spec.Secrets. SecretValues and Scrub
// mask a call's secret values where a tool echoes them (an error message,
// a result's text or output), as they are, in any ASCII case,
// JSON-escaped, percent-encoded, in hex or in base64 (see Scrub for what
// is found and what is not).
//
// A redacted value, whatever its JSON type, is replaced by the string
// "[REDACTED]". A null stays null: there is nothing to hide.
//
// # Path syntax
//
// A path is a list of segments separated by ".". Each segment is an object
// key optionally followed by any number of "[]" (every element of an array)
// or "{}" (every value of an object, whatever its key):
//
//	"token"            top-level key token
//	"auth.token"       key token inside the object at key auth
//	"items[].key"      key key in every element of the array items
//	"matrix[][]"       every element of every array inside matrix
//	"headers{}"        every value of the object headers
//	"env{}.value"      key value inside every value of the object env
//	"{}.password"      key password inside every top-level value (map roots)
//
// These are exactly the paths internal/schema produces for tagged fields of
// slices and maps, so tag-derived paths always parse. Because secrets are
// better over-redacted than leaked, arrays are transparent to key segments:
// "items.key" also reaches key in every element of an array items. Keys that
// contain "." cannot be addressed by a path (the name heuristic still sees
// them). A path that does not match the arguments' shape redacts nothing.
// Other path languages' syntax (indexes such as "items[0]", wildcards "*",
// a root "$") is refused, not read as a literal key that matches nothing.
//
// Arguments that are not valid JSON cannot be inspected, so they are
// replaced as a whole by the JSON string "[REDACTED]" (fail safe).
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
)

// Mask is what a redacted value becomes (as a JSON string).
const Mask = "[REDACTED]"

var maskJSON = []byte(`"` + Mask + `"`)

// node is one step of the compiled path trie. After finalize, lookups need no
// set of active nodes: a key goes to children[k] (which already includes what
// "{}" adds) or to anyKey, and an array element goes to elem.
type node struct {
	leaf     bool
	children map[string]*node
	anyKey   *node // "{}": every value of an object
	elem     *node // "[]": every element of an array
}

// Redactor masks the values at a fixed set of paths, plus (by default) keys
// that look like secrets. It is immutable and safe for concurrent use.
type Redactor struct {
	root      *node
	paths     []string
	heuristic bool
}

// Option configures a Redactor.
type Option func(*Redactor)

// WithKeyHeuristic turns the redaction of keys that look like secrets (see
// LooksSecret) on or off. It is on by default.
func WithKeyHeuristic(on bool) Option { return func(r *Redactor) { r.heuristic = on } }

// Compile parses paths (see the package doc for the syntax) into a Redactor.
// An error names the path and what is wrong with it.
func Compile(paths []string, opts ...Option) (*Redactor, error) {
	r := &Redactor{heuristic: true, paths: append([]string(nil), paths...)}
	for _, o := range opts {
		if o != nil {
			o(r)
		}
	}
	root := &node{}
	for _, p := range paths {
		if err := insert(root, p); err != nil {
			return nil, err
		}
	}
	if len(paths) > 0 {
		r.root = finalize(root)
	}
	return r, nil
}

// MustCompile is Compile that panics on a bad path; for paths fixed in code.
func MustCompile(paths []string, opts ...Option) *Redactor {
	r, err := Compile(paths, opts...)
	if err != nil {
		panic(err)
	}
	return r
}

// Paths returns the paths the Redactor was compiled from.
func (r *Redactor) Paths() []string { return append([]string(nil), r.paths...) }

func insert(root *node, path string) error {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("redact: secret path is empty: name a field such as \"auth.token\" or \"items[].key\"")
	}
	n := root
	for _, seg := range strings.Split(path, ".") {
		name := seg
		var suffix []byte
		for {
			if strings.HasSuffix(name, "[]") {
				suffix = append(suffix, '[')
			} else if strings.HasSuffix(name, "{}") {
				suffix = append(suffix, '{')
			} else {
				break
			}
			name = name[:len(name)-2]
		}
		if name == "" && len(suffix) == 0 {
			return fmt.Errorf("redact: secret path %q has an empty segment: separate keys with a single \".\" (e.g. \"auth.token\")", path)
		}
		if strings.ContainsAny(name, "[]{}*") || (n == root && name == "$") {
			return fmt.Errorf("redact: secret path %q: %q is not a key: write \"[]\" for every element of an array and \"{}\" for every value of an object (e.g. \"items[].key\", \"env{}\"); indexes, \"*\" and \"$\" are not part of the syntax", path, seg)
		}
		if name != "" {
			if n.children == nil {
				n.children = map[string]*node{}
			}
			c := n.children[name]
			if c == nil {
				c = &node{}
				n.children[name] = c
			}
			n = c
		}
		// Suffixes were collected right to left.
		for i := len(suffix) - 1; i >= 0; i-- {
			if suffix[i] == '[' {
				if n.elem == nil {
					n.elem = &node{}
				}
				n = n.elem
			} else {
				if n.anyKey == nil {
					n.anyKey = &node{}
				}
				n = n.anyKey
			}
		}
	}
	n.leaf = true
	return nil
}

// merge returns a new trie that is the union of a and b.
func merge(a, b *node) *node {
	if a == nil {
		return clone(b)
	}
	if b == nil {
		return clone(a)
	}
	m := &node{leaf: a.leaf || b.leaf}
	if len(a.children)+len(b.children) > 0 {
		m.children = map[string]*node{}
		for k, c := range a.children {
			m.children[k] = merge(c, b.children[k])
		}
		for k, c := range b.children {
			if _, ok := a.children[k]; !ok {
				m.children[k] = clone(c)
			}
		}
	}
	if a.anyKey != nil || b.anyKey != nil {
		m.anyKey = merge(a.anyKey, b.anyKey)
	}
	if a.elem != nil || b.elem != nil {
		m.elem = merge(a.elem, b.elem)
	}
	return m
}

func clone(n *node) *node {
	if n == nil {
		return nil
	}
	c := &node{leaf: n.leaf, anyKey: clone(n.anyKey), elem: clone(n.elem)}
	if n.children != nil {
		c.children = make(map[string]*node, len(n.children))
		for k, v := range n.children {
			c.children[k] = clone(v)
		}
	}
	return c
}

// finalize folds "{}" into every named child and array transparency into
// elem, so that matching follows a single node at every step.
func finalize(n *node) *node {
	if n == nil || n.leaf {
		return n
	}
	out := &node{}
	if n.anyKey != nil {
		out.anyKey = finalize(n.anyKey)
	}
	if len(n.children) > 0 {
		out.children = make(map[string]*node, len(n.children))
		for k, c := range n.children {
			out.children[k] = finalize(merge(c, n.anyKey))
		}
	}
	// An element of an array sees "[]" paths and, because arrays are
	// transparent to key segments, the node's own key paths.
	keys := &node{children: n.children, anyKey: n.anyKey}
	if n.elem != nil {
		out.elem = finalize(merge(n.elem, keys))
	} else if len(n.children) > 0 || n.anyKey != nil {
		out.elem = out // transparent: elements see this same node
	}
	return out
}

// Redact returns args with secret values replaced by "[REDACTED]". When
// nothing is redacted it returns args itself without copying (callers must
// treat both as read-only); otherwise a new slice. Key order and formatting
// outside the masked values are kept.
func (r *Redactor) Redact(args json.RawMessage) json.RawMessage {
	if r == nil || (r.root == nil && !r.heuristic) || len(args) == 0 {
		return args
	}
	w := rewriter{in: args, heuristic: r.heuristic}
	w.skipWS()
	if err := w.value(r.root); err != nil {
		return json.RawMessage(maskJSON)
	}
	w.skipWS()
	if w.i != len(w.in) {
		return json.RawMessage(maskJSON)
	}
	if w.out == nil {
		return args
	}
	w.out = append(w.out, w.in[w.last:]...)
	return w.out
}

type cached struct {
	paths []string
	r     *Redactor // nil: the paths do not compile
}

var (
	cacheMu  sync.Mutex
	cache    sync.Map // first path → []cached (replaced, never mutated)
	cacheLen int
)

const cacheMax = 4096

var defaultRedactor = MustCompile(nil)

// Args redacts args with the given paths and the default key heuristic. It
// caches compiled paths (without allocating on a hit), so it is cheap to
// call per call with a spec's Secrets. A path that does not parse makes the
// whole arguments redacted (fail safe); use Compile to see the error.
//
// The result is always valid JSON when args is not empty (args itself, a
// rewrite of it, or the mask), or empty when args is: the audit extension
// relies on it to skip checking the result again.
func Args(args json.RawMessage, paths []string) json.RawMessage {
	return redactWith(lookup(paths), args)
}

// lookup returns the cached Redactor for paths, nil when they do not
// compile.
func lookup(paths []string) *Redactor {
	if len(paths) == 0 {
		return defaultRedactor
	}
	if v, ok := cache.Load(paths[0]); ok {
		for _, c := range v.([]cached) {
			if slices.Equal(c.paths, paths) {
				return c.r
			}
		}
	}
	r, err := Compile(paths)
	if err != nil {
		r = nil
	}
	cacheMu.Lock()
	if cacheLen < cacheMax {
		var list []cached
		if v, ok := cache.Load(paths[0]); ok {
			list = v.([]cached)
		}
		cache.Store(paths[0], append(slices.Clip(list), cached{paths: slices.Clone(paths), r: r}))
		cacheLen++
	}
	cacheMu.Unlock()
	return r
}

// minEcho is the shortest secret value Scrub looks for, in any form:
// shorter ones would mask ordinary words and numbers.
const minEcho = 4

// SecretValues returns the values Args masks in args (strings and numbers
// masked whole, those inside masked objects and arrays, and the parts of
// strings masked inside them: the password of "curl -u me:pw"), so that where
// a tool echoes one (an error message: "pin 1234 rejected") Scrub can mask
// it; of a value that is a scheme and credentials ("Bearer <token>",
// "Basic <base64>", a space or a tab after the scheme), the credentials
// alone and a Basic credential's user:password and password too; and of
// a value that is base64 (either alphabet, any padding) of a
// user:password, as a Basic credential masked inside a command ("curl -H
// 'Authorization: Basic ...'"), those two. With paths that do not compile, every
// value counts (fail safe).
func SecretValues(args json.RawMessage, paths []string) []string {
	if len(args) == 0 {
		return nil
	}
	r := lookup(paths)
	var found []string
	if r == nil {
		leaves(args, &found)
		return found
	}
	w := rewriter{in: args, heuristic: r.heuristic, found: &found}
	w.skipWS()
	if w.value(r.root) != nil {
		found = found[:0]
		leaves(args, &found)
	}
	return schemeCredentials(found)
}

// schemeCredentials appends to found, for each value that is an
// Authorization header's scheme and credentials ("Bearer <token>", "Basic
// dXNlcjpwdw=="; spaces or tabs after the scheme), the credentials alone,
// and of a Basic credential its user:password and password decoded: a
// server that refuses a token echoes it without its scheme ("invalid
// token <token>"). A value that is base64 (either alphabet, padded or
// not) of a user:password (the rule masks a Basic credential's base64
// alone inside a command, "curl -H 'Authorization: Basic ...'") gives its
// user:password and password too.
func schemeCredentials(found []string) []string {
	for i, n := 0, len(found); i < n; i++ {
		v := strings.TrimSpace(found[i])
		k := strings.IndexAny(v, " \t")
		if k < 0 {
			found = appendBasic(found, v, false)
			continue
		}
		scheme, cred := v[:k], strings.TrimLeft(v[k:], " \t")
		switch strings.ToLower(scheme) {
		case "bearer", "token", "bot":
			found = append(found, cred)
		case "basic":
			found = append(found, cred)
			found = appendBasic(found, cred, true)
		}
	}
	return found
}

// appendBasic appends to found the user:password and password that cred,
// a Basic credential's base64, decodes to: in either alphabet, with or
// without (or with too much) padding. A value not known to be one
// (basic false) counts only when it decodes to text of printable
// characters with a ":" in it.
func appendBasic(found []string, cred string, basic bool) []string {
	if len(cred) < 8 || len(cred) > 4<<10 {
		return found
	}
	c := strings.TrimRight(cred, "=")
	if strings.ContainsAny(c, "-_") {
		c = strings.NewReplacer("-", "+", "_", "/").Replace(c)
	}
	b, err := base64.RawStdEncoding.DecodeString(c)
	if err != nil {
		return found
	}
	d := string(b)
	user, pw, ok := strings.Cut(d, ":")
	if !basic && (!ok || user == "" || pw == "" || !printable(d)) {
		return found
	}
	found = append(found, d)
	if ok {
		found = append(found, pw)
	}
	return found
}

// printable reports whether s is UTF-8 text without control characters.
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// Message redacts a message for a record of a call (a log line, an audit
// record): the one rule (String), then the values SecretValues finds under
// paths in each of args, wherever the tool echoed them ("pin 1234
// rejected"). args are the call's arguments, and those it was asked with
// when an extension rewrote them.
func Message(msg string, paths []string, args ...json.RawMessage) string {
	msg = String(msg)
	for i, a := range args {
		if len(a) > 0 && (i == 0 || !bytes.Equal(a, args[0])) {
			msg = Scrub(msg, SecretValues(a, paths))
		}
	}
	return msg
}

// MessageHead is Message for the head of a longer text, which a record
// keeps n bytes of: read is the text's first n bytes and a slack past
// them (longer than the secrets to be masked whole), so that a secret the
// cut at n falls in is seen whole. What redaction left as it was at the
// end of the slack is dropped: a piece of a secret the read itself cut
// off ("ghp_" and 29 of its characters), which no rule recognises, is
// never kept, even where redaction made the text shorter than n (a
// private key block become a mask). The result may hold more than n
// bytes (masks in the slack); the caller cuts it to n.
func MessageHead(read string, n int, paths []string, args ...json.RawMessage) string {
	out := Message(read, paths, args...)
	same := 0 // bytes at the end that redaction left as they were
	for same < len(read)-n && same < len(out) && out[len(out)-1-same] == read[len(read)-1-same] {
		same++
	}
	cut := len(out) - same
	for cut > 0 && cut < len(out) && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut]
}

// MessageTail is MessageHead for the tail of a longer text: read is its
// last n bytes and a slack before them, and what redaction left as it
// was at the start of the slack is dropped.
func MessageTail(read string, n int, paths []string, args ...json.RawMessage) string {
	out := Message(read, paths, args...)
	same := 0 // bytes at the start that redaction left as they were
	for same < len(read)-n && same < len(out) && out[same] == read[same] {
		same++
	}
	for same < len(out) && !utf8.RuneStart(out[same]) {
		same++
	}
	return out[same:]
}

// CutSlack is how far past a cut MessageHead and MessageTail are given to
// read: longer than secrets are (a 4096-bit RSA private key in PEM is
// 3.2 KiB), so that a secret the cut falls in is seen whole.
const CutSlack = 4 << 10

// HeadTail is Message for a record that keeps at most n bytes of msg (a
// history record's message, a log line's error): msg redacted when it
// fits, else its first three quarters and last quarter, as
// textcut.HeadTail lays them out, around "\n[... K bytes cut ...]\n".
// Each part is redacted with CutSlack bytes more of msg on the side of the
// cut (MessageHead, MessageTail) and cut after, so that a secret a cut
// falls in is masked whole, never kept in part.
func HeadTail(msg string, n int, paths []string, args ...json.RawMessage) string {
	if len(msg) <= n {
		// A mask may be longer than what it hides: cut after.
		return textcut.HeadTail(Message(msg, paths, args...), n)
	}
	room := n - len("\n[...  bytes cut ...]\n") - len(strconv.Itoa(len(msg)))
	if room <= 0 {
		return textcut.HeadTail(msg, n) // the marker alone
	}
	h, t := room*3/4, room/4
	cut := len(msg) - len(textcut.Head(msg, h)) - len(textcut.Tail(msg, t))
	head := textcut.Head(MessageHead(textcut.Head(msg, h+CutSlack), h, paths, args...), h)
	tail := textcut.Tail(MessageTail(textcut.Tail(msg, t+CutSlack), t, paths, args...), t)
	return head + "\n[... " + strconv.Itoa(cut) + " bytes cut ...]\n" + tail
}

// Scrub masks in s every occurrence of a value of at least 4 bytes (see
// SecretValues): the secrets of a call that its tool echoed into a
// message or a result. It finds a value written, in any mix of ASCII
// upper and lower case (a key an echo normalized, HUNTER2 for hunter2),
//
//   - as it is, or with "+" for its spaces;
//   - behind JSON string escapes, any mix of them (\u0026, \u003C, \",
//     \\, \/, \n, \u00e4, surrogate pairs), one level deep;
//   - percent-encoded, any mix of encoded and plain bytes, either case;
//   - in hex;
//   - in base64, standard or URL-safe, padded or not: alone, and inside a
//     larger encoded text (base64 of "user:secret" in a Basic
//     Authorization header, of a file holding the secret) at any of the
//     three offsets it can have there, for a value of 5 bytes or more.
//     Inside a larger text the characters it shares with its neighbours
//     are kept: at most 4 bits of its first and of its last byte.
//
// Echoes that overlap (a value written twice sharing bytes, or two values)
// are masked as one, nothing of either kept.
// Hex or base64 behind JSON escapes or percent-encoding (base64 with \/,
// or %2B in a URL) is found. It does not find a value encoded twice
// otherwise (base64 of hex, JSON in JSON, JSON escapes and percent-encoding
// in one echo), written in other encodings (HTML entities other than the
// usual escapes of & < > " ' and html/template's of +, base32, quoted-printable,
// hex with separators such as "de:ad:be:ef"), split,
// reversed or otherwise transformed, nor a value shorter than 4 bytes.
// Its cost is one pass over s for all the forms of all the values, and
// one over each copy of s with its escapes decoded when s holds a JSON
// escape or a percent-encoded byte. Only a text with a run of hex or
// base64 characters as long as the shortest encoded form is searched for
// encoded forms, and only the 1024 longest values are: the others of a
// call with more are looked for as they are. Forms longer than 64 bytes
// are compared where the text holds one's first 8 bytes; a text made to
// hold many such starts, whose comparisons (in it and its copies
// together) would read more than 64 MiB, is replaced whole by the mask
// (fail safe).
func Scrub(s string, values []string) string {
	if len(values) == 0 {
		return s
	}
	return newScrubber(values).scrub(s)
}

// scrubShort is the length up to which Scrub looks for forms in one pass.
const scrubShort = 64

// leaves appends the string and number values in the JSON raw to out
// (raw itself when it does not parse).
func leaves(raw []byte, out *[]string) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		*out = append(*out, string(raw))
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			*out = append(*out, v)
		case json.Number:
			*out = append(*out, v.String())
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
}

func redactWith(r *Redactor, args json.RawMessage) json.RawMessage {
	if r == nil {
		return json.RawMessage(maskJSON)
	}
	return r.Redact(args)
}

// LooksSecret reports whether a name (an object key, a header, an
// environment variable) looks like it holds a secret. The name is split into
// lower-case words at "_", "-", ".", spaces and camelCase boundaries
// (full-width letters count as their ASCII forms and invisible format
// characters such as zero-width spaces are ignored); it looks secret when
//
//   - a word is password, passwd, pwd, passphrase, passcode, secret(s), auth,
//     authorization, bearer, jwt, cred(s), credential(s), cookie(s), session, dsn,
//     apikey or privkey, or "password" in another language (passwort,
//     kennwort, contraseña, senha, wachtwoord, пароль, 密码, パスワード,
//     비밀번호, ...), or ends in one of password, passwd, secret, apikey,
//     cookie, credential, sessionid, sessid (dbpassword, xapikey,
//     jsessionid);
//   - two or three adjacent words written together are such a word
//     ("pass word", PassWord, "mot de passe");
//   - two adjacent words are "api key", "private key", "priv key", "ssh
//     key", "access key", "secret key", "signing key", "master key",
//     "encryption key", "hmac key", "subscription key" (Azure's
//     Ocp-Apim-Subscription-Key), "client key" (a kubeconfig's
//     client-key-data), "account key" (Azure Storage's AccountKey), "app
//     key" and "application key" (Datadog's DD-APPLICATION-KEY, Adzuna's
//     app_key), "license key" and "insert key" (New Relic's), "consumer
//     key" (OAuth 1, Twitter) or "functions key" (Azure Functions'
//     x-functions-key);
//   - a word, or two adjacent words written together, is appid
//     (OpenWeather's ?appid=; written apart, app_id and appId, too, as
//     pass_word is password), honeycombteam (Honeycomb's
//     X-Honeycomb-Team), masterauth (Redis's replica password),
//     dockerconfigjson or dockercfg (an image pull secret's); app,
//     application, team, appname and application_id are not;
//   - the last word is token or ends in token (access_token, refreshToken,
//     githubtoken; max_tokens and token_count are not), or is psk (a Wi-Fi
//     pre-shared key: wpa_supplicant's psk, nmcli's
//     802-11-wireless-security.psk; psk-flags is not), or is pass after
//     another word or written after what the password opens (db_pass,
//     dbPass, smtp_pass, dbpass, PGPASS, requirepass; pass alone, an
//     English word, is not, nor are pass_rate, bypass, compass and
//     lowpass).
//
// A word is judged without the digits it ends with, and a word of digits
// is skipped: password1, new_password2 and access-token-2 look secret. A
// word that is one of the "... key" words above followed by key
// (secretkey, privatekey, SSHKEY) looks secret too.
//
// It is the one rule for names across logs, audit records, events, errors
// and the sandbox's environment scrubbing; String applies it to the names
// of name=value and name: value pairs and --name value flags in text.
func LooksSecret(key string) bool {
	key = foldName(key)
	var cur, a, b [64]byte // a: the previous word, b: the one before it
	na, nb := 0, 0
	prev, last := kindOther, kindOther
	words := 0
	for i := 0; i < len(key); {
		var w []byte
		w, i = nextWord(key, i, cur[:0])
		// A number after a word, or a word of its own, says which one
		// (password1, password2, access-token-2), not what it is.
		w = trimDigits(w)
		if len(w) == 0 {
			continue
		}
		k := classify(w)
		switch {
		case k == kindSecret:
			return true
		case k == kindKey && prev == kindKeyPrefix:
			return true
		case na > 0 && joinedSecret(a[:na], w):
			return true
		case nb > 0 && na > 0 && joinedSecret(b[:nb], a[:na], w):
			return true
		}
		if k == kindOther && (endsWithToken(w) || string(w) == "psk" || passWord(w) || (string(w) == "pass" && words > 0)) {
			// psk: a Wi-Fi pre-shared key; pass: a password after what
			// it opens (db_pass, requirepass). As the last word only:
			// psk-flags, pass_rate and pass_count are not.
			k = kindToken
		}
		prev, last = k, k
		words++
		b, nb = a, na
		na = 0
		if len(w) <= len(a) {
			na = copy(a[:], w)
		}
	}
	return last == kindToken
}

// joinedSecret reports whether words written together make a secret word
// ("pass" "word").
func joinedSecret(words ...[]byte) bool {
	var buf [192]byte
	j := buf[:0]
	for _, w := range words {
		j = append(j, w...)
	}
	return classify(j) == kindSecret
}

// foldName maps what makes a name look different without changing what it
// says: full-width forms become ASCII, invisible format characters (zero
// width spaces and joiners, soft hyphens, BOM) are dropped, and other
// letters are lower-cased. ASCII names are returned as they are.
func foldName(key string) string {
	ascii := true
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return key
	}
	var sb strings.Builder
	sb.Grow(len(key))
	for _, r := range key {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
			sb.WriteRune(r - 0xFEE0)
		case unicode.Is(unicode.Cf, r):
		case r >= utf8.RuneSelf:
			sb.WriteRune(unicode.ToLower(r))
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// LooksSecretEnv reports whether an environment variable name looks like
// it holds a secret: LooksSecret, or a word key, keys, cert, certs,
// signature, sig or pass (environment names are terse: AWS_ACCESS_KEY_ID,
// NPM_PASS, SIGNING_CERT), or a last word pat: a personal access token
// (CR_PAT, GH_PAT, AZURE_DEVOPS_EXT_PAT; PATH and PATTERN are not).
func LooksSecretEnv(name string) bool {
	if LooksSecret(name) || lastWord(name) == "pat" {
		return true
	}
	var buf [64]byte
	for i := 0; i < len(name); {
		var w []byte
		w, i = nextWord(name, i, buf[:0])
		switch string(trimDigits(w)) {
		case "key", "keys", "cert", "certs", "signature", "sig", "pass", "pem", "pfx":
			return true
		}
	}
	return false
}

// endsInPass reports whether the last word of name, as LooksSecret splits
// it, is pass or passWord's (pass, db_pass, dbpass): a name that may
// hold a test's result rather than a password.
func endsInPass(name string) bool {
	last := lastWord(name)
	return last == "pass" || passWord([]byte(last))
}

// lastWord returns the last word of name as LooksSecret splits it (lower
// case, without the digits it ends with).
func lastWord(name string) string {
	var buf [64]byte
	var last []byte
	for i := 0; i < len(name); {
		var w []byte
		w, i = nextWord(name, i, buf[:0])
		if w = trimDigits(w); len(w) > 0 {
			last = append(last[:0], w...)
		}
	}
	return string(last)
}

type wordKind uint8

const (
	kindOther wordKind = iota
	kindSecret
	kindKeyPrefix // api, private, ssh, access, secret, signing: "... key"
	kindKey
	kindToken
)

func classify(w []byte) wordKind {
	switch string(w) { // no allocation: the conversion is only compared
	case "password", "passwd", "pwd", "passphrase", "passcode", "secret", "secrets", "auth", "authorization",
		"bearer", "jwt", "cred", "creds", "credential", "credentials", "apikey", "privkey", "cookie", "cookies", "session", "sessionid", "sessid", "dsn",
		// services' own names for their API keys: OpenWeather's appid,
		// Honeycomb's X-Honeycomb-Team; Redis's replica password; a
		// Kubernetes image pull secret's registry credentials
		"appid", "honeycombteam", "masterauth", "dockerconfigjson", "dockercfg",
		// "password" in other languages
		"passwort", "kennwort", "contraseña", "contrasena", "motdepasse", "senha", "wachtwoord", "haslo", "hasło",
		"lösenord", "losenord", "salasana", "пароль", "密码", "密碼", "パスワード", "비밀번호":
		return kindSecret
	case "api", "private", "priv", "ssh", "access", "signing", "master", "encryption", "hmac", "subscription", "client", "account",
		"app", "application", "license", "licence", "consumer", "functions", "insert":
		return kindKeyPrefix
	case "key":
		return kindKey
	case "token":
		return kindToken
	}
	for _, suf := range secretSuffixes {
		if len(w) > len(suf) && string(w[len(w)-len(suf):]) == suf {
			return kindSecret
		}
	}
	// "... key" written as one word: secretkey, privatekey, SECRETKEY.
	if n := len(w) - len("key"); n > 0 && string(w[n:]) == "key" {
		if k := classify(w[:n]); k == kindKeyPrefix || k == kindSecret {
			return kindSecret
		}
	}
	return kindOther
}

// trimDigits returns w without the ASCII digits it ends with.
func trimDigits(w []byte) []byte {
	for len(w) > 0 && w[len(w)-1] >= '0' && w[len(w)-1] <= '9' {
		w = w[:len(w)-1]
	}
	return w
}

var secretSuffixes = []string{"password", "passwd", "secret", "apikey", "cookie", "credential", "sessionid", "sessid",
	"passwort", "kennwort", "пароль", "密码", "密碼", "パスワード", "비밀번호"}

func endsWithToken(w []byte) bool {
	return len(w) > 5 && string(w[len(w)-5:]) == "token"
}

// passWord reports whether w is pass written after what the password
// opens (dbpass, smtppass, pgpass, requirepass). Other words ending in
// pass are not (bypass, compass, lowpass, overpass), nor is sshpass: a
// program, whose -p flag the command rule reads.
func passWord(w []byte) bool {
	n := len(w) - len("pass")
	if n <= 0 || string(w[n:]) != "pass" {
		return false
	}
	switch string(w[:n]) {
	case "db", "sql", "mysql", "pg", "postgres", "redis", "mongo", "smtp", "mail", "imap", "pop", "ftp",
		"ldap", "bind", "admin", "root", "user", "login", "key", "store", "trust", "master", "require", "proxy",
		"vnc", "wifi", "sudo", "api", "rpc", "http", "auth":
		return true
	}
	return false
}

// nextWord returns the lower-cased word of key starting at or after i, and
// where the next one starts. Words split at non-alphanumeric bytes and at
// camelCase boundaries ("APIKey" → api, key; "refreshToken" → refresh, token).
func nextWord(key string, i int, b []byte) ([]byte, int) {
	for ; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= utf8.RuneSelf:
			_, size := utf8.DecodeRuneInString(key[i:])
			b = append(b, key[i:i+size]...)
			i += size - 1
		case c >= 'A' && c <= 'Z':
			if len(b) > 0 {
				p := key[i-1]
				nextLower := i+1 < len(key) && key[i+1] >= 'a' && key[i+1] <= 'z'
				if (p >= 'a' && p <= 'z') || (p >= '0' && p <= '9') || (p >= 'A' && p <= 'Z' && nextLower) {
					return b, i
				}
			}
			b = append(b, c+('a'-'A'))
		case (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'):
			b = append(b, c)
		default:
			if len(b) > 0 {
				return b, i + 1
			}
		}
	}
	return b, i
}
