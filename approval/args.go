package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/toolbelt-go/toolbelt/internal/canonjson"
	"github.com/toolbelt-go/toolbelt/internal/hostpath"
	"github.com/toolbelt-go/toolbelt/internal/jsonargs"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// decodeObject parses args as one JSON object, numbers kept exact.
func decodeObject(args json.RawMessage) (map[string]any, error) {
	return schema.Decode(args)
}

// Canonical returns the canonical form of a JSON value (RFC 8785, as
// internal/canonjson writes it): object keys sorted, no insignificant white
// space, numbers as the doubles they denote (1 and 1.0 are the same).
// Two argument documents that mean the same have the same canonical form.
// The cache keys calls with the same function.
func Canonical(args json.RawMessage) ([]byte, error) {
	c, err := canonjson.Canonical(args)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return c, nil
}

// HashArgs returns "sha256:" and the hex SHA-256 of the canonical form of
// args. Decisions are bound to this hash: arguments that hash differently
// are different arguments.
func HashArgs(args json.RawMessage) (string, error) {
	c, err := Canonical(args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

var validators sync.Map // string(input schema) → *schema.Validator or error

func validatorFor(spec *tool.Spec) (*schema.Validator, error) {
	raw := spec.InputSchema
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	key := string(raw)
	if v, ok := validators.Load(key); ok {
		if err, bad := v.(error); bad {
			return nil, err
		}
		return v.(*schema.Validator), nil
	}
	val, err := schema.Compile(raw)
	if err != nil {
		err = fmt.Errorf("input schema of tool %q: %w", spec.Name, err)
		validators.Store(key, err)
		return nil, err
	}
	validators.Store(key, val)
	return val, nil
}

// ValidateArgs checks args against the input schema of spec, the way the
// executor checks a model's arguments: a JSON object naming no key twice,
// optional nulls that the schema does not accept dropped, the schema's
// property defaults filled in where the arguments leave them out, every
// field valid. It returns the arguments to run with (compacted) or an
// error naming each failing field. Approvers use it to refuse a bad
// modification before it is accepted; the approval extension binds what it
// returns, which is then what the executor runs (a default filled only
// later would change a retried run's arguments after approval).
func ValidateArgs(spec *tool.Spec, args json.RawMessage) (json.RawMessage, error) {
	val, err := validatorFor(spec)
	if err != nil {
		return nil, err
	}
	m, err := decodeObject(args)
	if err != nil {
		return nil, err
	}
	if err := schema.UniqueKeys(args); err != nil {
		return nil, err
	}
	val.StripNulls(m)
	schema.DefaultsOf(spec.InputSchema).Fill(m, "")
	if err := val.Validate(m); err != nil {
		return nil, err
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("re-encode arguments: %v", err)
	}
	return out, nil
}

// SubjectFields are the argument fields whose string values are a call's
// subjects when its tool does not implement Subjecter and its input schema
// declares no path argument (sandbox.PathKeyword): "command" alone when
// present, else each of the others present ("url" as a URL, the rest as
// paths cleaned lexically, the way an undeclared path can be), all of
// which an allow rule must match. The path names are those the governance
// policy takes for paths (policy.DefaultPathFields), so that a path in
// "dst" is not passed over while "path" is approved. A field is read under
// every key a decoder may take for it, as encoding/json does ("Path" and
// "PATH" for path), and a "command" given as a list of strings is that
// argv, quoted; a list of strings beside it under "args", "arguments" or
// "argv" ({"command": "git", "args": ["push"]}) is appended to it, quoted.
var SubjectFields = []string{"command", "path", "file", "url", "filepath", "dir", "directory", "target", "src", "dst"}

// subjectKind says how wildcards in a rule match a subject.
type subjectKind uint8

const (
	// subjectText: a command line or a tool's own subject. * and ** match
	// any text (except shell control operators, in allow rules).
	subjectText subjectKind = iota
	// subjectPath: a path or URL. * stops at '/', ** crosses it.
	subjectPath
)

// pathSubject is one path a call acts on, in the form rules match.
type pathSubject struct {
	path string
	// dir: the path is a directory, so the call may reach what lies
	// beneath it (a listing, a search).
	dir bool
	// ok is false for a path that leaves the workspace (or, without one,
	// climbs out with ".."), and for a value that is not a path: no
	// pattern matches it.
	ok bool
	// host is the same path on the host, when it was resolved in a
	// workspace (its directory joined with path): what an absolute
	// pattern matches.
	host string
	// out: a path that leaves the workspace or climbs out. Where it leads
	// cannot be judged, so every deny and ask rule with an absolute
	// pattern holds (see matchPaths).
	out bool
	// outside: the form a symlink leads to, out of the working directory
	// a relative path was taken from (appendPath). path is the absolute
	// host path, which only deny and ask rules match.
	outside bool
	// alias: another form of a subject an allow rule already judges (the
	// local path a file: URL names, beside the URL): deny and ask rules
	// match it, allow rules pass over it.
	alias bool
	// unjudged: the input schema declares more paths than schema.NestedPaths
	// reads (past its depth, count or step bound), so the call's paths
	// cannot all be known: every deny and ask rule on paths holds, and no
	// allow rule approves (ok is false).
	unjudged bool
}

// callSubject is what a call acts on: a text (a command line, a tool's own
// subject), or the paths of its path arguments.
type callSubject struct {
	kind  subjectKind
	text  string        // subjectText: the text; subjectPath: the paths, for people
	paths []pathSubject // subjectPath: every one
}

// has reports whether the call has a subject a pattern can match.
func (c *callSubject) has() bool {
	if c.kind == subjectText {
		return c.text != ""
	}
	return slices.ContainsFunc(c.paths, func(p pathSubject) bool { return p.ok })
}

// SubjectOf returns what a call to t with args acts on, and whether there is
// one: t's own Subject when it implements Subjecter (empty means none);
// otherwise the path arguments t's input schema declares
// (sandbox.PathKeyword), each in its canonical form, joined with ", ": a
// path is resolved in t's workspace when t names one (a Workspace()
// *sandbox.Workspace method, as the built-in file tools have), else
// cleaned lexically and followed by where the host's symlinks lead it
// from the process's working directory (or the directory the tool's calls
// run in, when it has a Workdir(args) string method), as written and
// cleaned, when that differs; a path that cannot be resolved (it leaves the
// workspace) is left out, and so matches no rule. A declared path argument
// left out, null, empty ("") or an empty list counts as the default its
// schema states, else as the workspace root "." (where the built-in list
// and search tools then look), with or without a workspace. A tool that
// declares no path falls back to its string fields among SubjectFields.
// An argument is read under every key encoding/json may take for it
// ("Path" and "PATH" are path), each value a subject, and a path the
// schema declares inside an object or a list the arguments hold (a nested
// struct's toolbelt:"path" field, or one a local $ref leads to) is a
// subject when it is given. A schema that declares paths deeper than 32
// levels, more than 256 of them, or through $refs that loop (a tree of
// entries) cannot all be read: its calls' paths are taken as any path, so
// deny and ask rules on paths hold and allow rules on paths do not approve.
func SubjectOf(t tool.Tool, args json.RawMessage) (string, bool) {
	if t != nil {
		t = subjectOwner(t) // what the rules read, shown to the person asked
	}
	var spec *tool.Spec
	if _, ok := t.(Subjecter); !ok && t != nil {
		s := t.Spec()
		spec = &s
	}
	c := subjectOf(t, spec, nil, args)
	return c.text, c.has()
}

// subjectOf finds the subject; spec is the called tool's (may be nil), ws
// the workspace paths resolve in when t names none.
func subjectOf(t tool.Tool, spec *tool.Spec, ws *sandbox.Workspace, args json.RawMessage) callSubject {
	if s, ok := t.(Subjecter); ok {
		return callSubject{kind: subjectText, text: s.Subject(args)}
	}
	fields, ok := jsonargs.Members(args, nil)
	if !ok || !json.Valid(args) {
		return callSubject{kind: subjectText}
	}
	if wt, ok := tool.As[interface{ Workspace() *sandbox.Workspace }](t); ok && wt.Workspace() != nil {
		ws = wt.Workspace()
	}
	at := place{ws: ws}
	if wd, ok := tool.As[interface{ Workdir(json.RawMessage) string }](t); ok {
		at.dir = wd.Workdir(args)
	}
	var declared []string
	var nested []schema.NestedPath
	cut := false
	if spec != nil {
		declared = sandbox.PathArguments(spec.InputSchema)
		nested, cut = schema.NestedPaths(spec.InputSchema)
	}
	if len(declared) > 0 || len(nested) > 0 || cut {
		c := callSubject{kind: subjectPath}
		if cut {
			// The schema declares more paths than schema.NestedPaths reads:
			// which the call names cannot all be known.
			c.paths = append(c.paths, pathSubject{unjudged: true})
		}
		// An argument left out, null, "" or [] is its schema default,
		// else the root "." (where a tool looks when it is given no path:
		// the built-in list and search tools take "" as the root too).
		omitted := func(paths []pathSubject, f string) []pathSubject {
			if def, ok := schemaDefault(spec.InputSchema, f); ok {
				return appendPath(paths, at, def)
			}
			return appendPath(paths, at, ".")
		}
		for _, f := range declared {
			// Every member a decoder may take for f is a path ("Path",
			// "PATH" for path: jsonargs.SameKey), each judged.
			raws := jsonargs.Values(fields, f)
			if len(raws) == 0 {
				c.paths = omitted(c.paths, f)
			}
			for _, raw := range raws {
				c.paths = declaredPaths(c.paths, raw, func(paths []pathSubject) []pathSubject { return omitted(paths, f) }, at)
			}
		}
		// Paths declared inside objects and lists (a nested struct's
		// field, files[].name, one behind a $ref; schema.NestedPaths, the
		// governance policy's walk too): each one given is a subject.
		// When a bound cuts that walk short (cut, above), a call's paths
		// cannot all be known, and every deny and ask rule on paths holds
		// (no allow rule approves).
		for _, np := range nested {
			for _, raw := range jsonargs.Below(args, np.Segs, nil) {
				c.paths = declaredPaths(c.paths, raw, func(paths []pathSubject) []pathSubject { return paths }, at)
			}
		}
		var shown []string
		for _, p := range c.paths {
			if p.ok {
				shown = append(shown, p.path)
			}
		}
		c.text = strings.Join(shown, ", ")
		return c
	}
	// A command is the subject; else every path, file and url is one.
	if slices.Contains(SubjectFields, "command") {
		if cmd, ok := commandOf(fields); ok {
			return callSubject{kind: subjectText, text: cmd}
		}
	}
	c := callSubject{kind: subjectPath}
	var shown []string
	for _, f := range SubjectFields {
		for _, raw := range jsonargs.Values(fields, f) {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				continue
			}
			switch f {
			case "command": // read above
			case "path", "file":
				c.paths = appendPath(c.paths, place{dir: at.dir}, s)
			case "url":
				c.paths = append(c.paths, pathSubject{path: canonicalURL(s), ok: true})
				// A host in Unicode is looked up as its IDNA form (ⓔvil.example
				// is evil.example to browsers and Go's net/http): that form is
				// a subject to deny and ask rules; allow rules judge the name
				// as written.
				if a, ok := idnaURL(s); ok {
					c.paths = append(c.paths, pathSubject{path: a, ok: true, alias: true})
				}
				// A file: URL names a local file, which a tool that opens
				// URLs reads: its path is a subject to deny and ask rules
				// (the URL, its path cleaned, is the allow rules').
				if fp, ok := hostpath.FileURLPath(s); ok {
					n := len(c.paths)
					c.paths = appendPath(c.paths, place{}, fp)
					for i := n; i < len(c.paths); i++ {
						c.paths[i].alias = true
					}
				}
			default:
				if s != "" { // an optional one left empty names nothing
					c.paths = appendPath(c.paths, place{dir: at.dir}, s)
				}
			}
		}
	}
	for _, p := range c.paths {
		if p.ok {
			shown = append(shown, p.path)
		}
	}
	if len(c.paths) == 0 {
		return callSubject{kind: subjectText}
	}
	c.text = strings.Join(shown, ", ")
	return c
}

// declaredPaths appends the subjects of one value of a declared path
// argument: a string, or each string of a list; null, "" and [] are the
// argument left out (omitted).
func declaredPaths(paths []pathSubject, raw json.RawMessage, omitted func([]pathSubject) []pathSubject, at place) []pathSubject {
	var s string
	var ss []string
	switch {
	case string(raw) == "null":
		paths = omitted(paths)
	case json.Unmarshal(raw, &s) == nil:
		if s == "" {
			paths = omitted(paths)
		} else {
			paths = appendPath(paths, at, s)
		}
	case json.Unmarshal(raw, &ss) == nil:
		if len(ss) == 0 {
			paths = omitted(paths)
		}
		for _, s := range ss {
			if s == "" {
				paths = omitted(paths)
			} else {
				paths = appendPath(paths, at, s)
			}
		}
	default:
		// Not a path at all: it matches no pattern, so no allow rule
		// approves the call. A list that also holds other values still
		// names a path with each of its strings (["secrets/key", 1] is
		// secrets/key to a deny rule).
		paths = append(paths, pathSubject{})
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			break
		}
		for _, it := range items {
			var s string
			switch {
			case json.Unmarshal(it, &s) != nil:
			case s == "": // null or "", as in a list of strings
				paths = omitted(paths)
			default:
				paths = appendPath(paths, at, s)
			}
		}
	}
	return paths
}

// commandOf returns the command line of an undeclared tool's "command"
// argument: its string, or its list of strings (an argv) quoted as a
// shell reads it back. Members in another case of the key ("Command") are
// read too, since encoding/json takes them; when they differ, the
// subject is every one of them, a line each, so a deny rule meets each
// and an allow rule (whose wildcards stop at a line break) none.
func commandOf(fields []jsonargs.Member) (string, bool) {
	var lines []string
	for _, raw := range jsonargs.Values(fields, "command") {
		var s string
		var argv []string
		switch {
		case json.Unmarshal(raw, &s) == nil:
		case json.Unmarshal(raw, &argv) == nil && len(argv) > 0:
			q := make([]string, len(argv))
			for i, w := range argv {
				q[i] = shellQuote(w)
			}
			s = strings.Join(q, " ")
		default:
			continue
		}
		for _, l := range withArgLists(s, fields) {
			if !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	return strings.Join(lines, "\n"), len(lines) > 0
}

// argListFields are the names under which a tool that takes a program and
// its arguments apart ({"command": "git", "args": ["push"]}, as Node's
// spawn(command, args) and MCP servers that run commands do) is given the
// arguments.
var argListFields = []string{"args", "arguments", "argv"}

// withArgLists returns the command line cmd with each list of strings the
// call gives under argListFields appended, quoted as a shell reads them
// back: one line per list (cmd alone when there is none).
func withArgLists(cmd string, fields []jsonargs.Member) []string {
	var out []string
	for _, f := range argListFields {
		for _, raw := range jsonargs.Values(fields, f) {
			var argv []string
			if json.Unmarshal(raw, &argv) != nil {
				continue
			}
			l := cmd
			for _, w := range argv {
				l += " " + shellQuote(w)
			}
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		out = append(out, cmd)
	}
	return out
}

// shellQuote returns w as one shell word: as it is when it holds only
// characters no shell reads specially, else in single quotes.
func shellQuote(w string) string {
	plain := w != ""
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)) {
			plain = false
			break
		}
	}
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// pathSubjectOf returns the canonical form of a path argument and whether
// it is a directory: in ws, an existing directory; without one, "." or a
// path written with a trailing slash.
func pathSubjectOf(ws *sandbox.Workspace, p string) pathSubject {
	c, ok := canonicalPath(ws, p)
	if !ok {
		return pathSubject{out: p != ""}
	}
	dir := c == "."
	host := ""
	if ws != nil {
		fi, err := ws.Stat(c)
		dir = dir || err == nil && fi.IsDir()
		host = filepath.ToSlash(ws.Dir())
		if c != "." {
			host = strings.TrimSuffix(host, "/") + "/" + c
		}
	} else {
		dir = dir || strings.HasSuffix(p, "/") || strings.HasSuffix(p, "\\")
		// A relative path is taken from the process's working directory
		// (a Go tool's os.Open): absolute patterns match it there.
		host = c
		if !path.IsAbs(c) {
			host = ""
			if wd, err := os.Getwd(); err == nil {
				host = path.Join(filepath.ToSlash(wd), c)
			}
		}
	}
	return pathSubject{path: c, host: host, dir: dir, ok: true}
}

// schemaDefault returns the string default the input schema states for
// the argument field (read as registry.Entry.CheckArgs fills it in).
func schemaDefault(inputSchema json.RawMessage, field string) (string, bool) {
	m := map[string]any{}
	schema.DefaultsOf(inputSchema).Fill(m, "")
	d, ok := m[field].(string)
	return d, ok && d != ""
}

// canonicalURL returns the form of a URL subject rules match: where the
// request goes, as a server reads it, so that a rule cannot be stepped
// round by writing the same place another way. Tabs and newlines are
// dropped and spaces around trimmed, as a browser does; the slashes after
// an http(s), ws(s) or ftp scheme are two however many are written, a
// backslash is a slash there and the host is percent-decoded
// (specialSlashes, decodeSpecialHost); scheme and host
// in lower case, without a trailing dot, user info or the scheme's
// default port (":0443" is ":443"); ideographic and full-width dots and
// full-width letters in the host as the ASCII ones IDNA maps them to; an
// IP address in its shortest form ("[::ffff:127.0.0.1]" is "127.0.0.1"),
// also one written as inet_aton reads it ("2130706433", "0x7f.1" and
// "127.1" are "127.0.0.1": ipv4Numbers);
// the path with its escapes decoded, "\" read as "/" and its dot
// segments (also "..;x", which Java servers read as "..") and repeated
// slashes resolved ("https://h/docs/../admin" and "https://h//admin" are
// "https://h/admin"), "/" when a query follows; the query as written; no
// fragment (never sent). A relative URL is cleaned as a path is; one that
// does not parse is kept as written (no client can send it either).
func canonicalURL(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })) // C0 controls and spaces, as a browser trims
	s = specialSlashes(s)
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" {
		return s
	}
	p := u.Path
	if p != "" {
		p = strings.ReplaceAll(p, "\\", "/")
		segs := strings.Split(p, "/")
		for i, seg := range segs {
			if d, _, ok := strings.Cut(seg, ";"); ok && (d == "." || d == "..") {
				segs[i] = d
			}
		}
		c := path.Clean(strings.Join(segs, "/"))
		if strings.HasSuffix(p, "/") && c != "/" {
			c += "/"
		}
		p = c
	}
	query := ""
	if u.RawQuery != "" || u.ForceQuery {
		query = "?" + u.RawQuery
	}
	if u.Scheme == "" && u.Host == "" {
		return p + query
	}
	host := strings.TrimSuffix(canonicalHost(u.Hostname()), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.Unmap().String()
	} else if a, ok := ipv4Numbers(host); ok {
		host = a.String()
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	scheme := strings.ToLower(u.Scheme)
	if port := u.Port(); port != "" {
		if n, err := strconv.ParseUint(port, 10, 16); err == nil {
			port = strconv.FormatUint(n, 10)
		}
		if !(scheme == "https" && port == "443" || scheme == "http" && port == "80") {
			host += ":" + port
		}
	}
	if p == "" && query != "" {
		p = "/" // the host ends before the query, as it does for the server
	}
	prefix := "//"
	if scheme != "" {
		prefix = scheme + "://"
	}
	return prefix + host + p + query
}

// ipv4Numbers reads host as an IPv4 address in the other forms inet_aton
// and the WHATWG URL standard accept, which curl, browsers, Python's
// socket.getaddrinfo and glibc's resolver connect to: one to four parts
// separated by dots, each decimal, octal after a leading 0, or hex after
// 0x, the last filling the bytes the others leave ("2130706433",
// "0x7f.1", "0177.0.0.1" and "127.1" are 127.0.0.1). A part that is none
// of these, or a value too large for its bytes, makes host a name.
func ipv4Numbers(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals [4]uint64
	for i, p := range parts {
		base := 10
		switch {
		case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0" // "0x" is 0, as WHATWG reads it
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if p == "" || p[0] == '+' || p[0] == '-' {
			return netip.Addr{}, false
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = n
	}
	last := len(parts) - 1
	for _, v := range vals[:last] {
		if v > 255 {
			return netip.Addr{}, false
		}
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i := range last {
		b[i] = byte(vals[i])
	}
	for i, v := 3, vals[last]; i >= last; i, v = i-1, v>>8 {
		b[i] = byte(v)
	}
	return netip.AddrFrom4(b), true
}

// specialSlashes writes an http, https, ws, wss or ftp URL as the WHATWG
// URL standard (browsers, Node's fetch) reads it: a backslash before the
// query as "/", and whatever slashes follow the scheme (none, one, three)
// as two, so "https:evil.example/x", "https:/evil.example/x" and
// `https:\\evil.example\x` are https://evil.example/x, where those
// clients connect. Other URLs are returned as they are.
func specialSlashes(s string) string {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return s
	}
	switch strings.ToLower(s[:i]) {
	case "http", "https", "ws", "wss", "ftp":
	default:
		return s
	}
	rest := s[i+1:]
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	rest = strings.ReplaceAll(rest[:end], "\\", "/") + rest[end:]
	return decodeSpecialHost(s[:i]+"://"+strings.TrimLeft(rest, "/"), i+3)
}

// decodeSpecialHost percent-decodes the host of the special URL s, whose
// authority begins at start, as the WHATWG URL standard does before it
// reads a host: "http://%31%36%39.254.169.254/" goes to 169.254.169.254,
// "https://%65vil.example/" to evil.example (url.Parse refuses both). A
// host that does not decode to valid UTF-8, or decodes to a code point no
// host may hold, is left as written: clients refuse it too.
func decodeSpecialHost(s string, start int) string {
	end := strings.IndexAny(s[start:], "/?#")
	if end < 0 {
		end = len(s)
	} else {
		end += start
	}
	hs := start + strings.LastIndexByte(s[start:end], '@') + 1
	host, port := s[hs:end], ""
	if !strings.Contains(host, "%") || strings.HasPrefix(host, "[") {
		return s
	}
	if k := strings.LastIndexByte(host, ':'); k >= 0 {
		host, port = host[:k], host[k:]
	}
	d, err := url.PathUnescape(host)
	if err != nil || !utf8.ValidString(d) || strings.ContainsFunc(d, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune("#%/:<>?@[\\]^|", r)
	}) {
		return s
	}
	return s[:hs] + d + port + s[end:]
}

// idnaURL returns the canonical form of the URL s with its host in the
// ASCII form an IDNA lookup (UTS #46, as browsers, Node's fetch and Go's
// net/http do it) gives, and whether that differs from canonicalURL(s).
func idnaURL(s string) (string, bool) {
	c := canonicalURL(s)
	u, err := url.Parse(c)
	if err != nil || u.Host == "" {
		return "", false
	}
	h := u.Hostname()
	ascii := true
	for i := 0; i < len(h); i++ {
		ascii = ascii && h[i] < utf8.RuneSelf
	}
	if ascii {
		return "", false
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil || a == h {
		return "", false
	}
	if port := u.Port(); port != "" {
		a = net.JoinHostPort(a, port)
	}
	u.Host = a
	if out := canonicalURL(u.String()); out != c {
		return out, true
	}
	return "", false
}

// canonicalHost returns a host name in lower case with the ideographic
// and full-width dots and the full-width ASCII letters, digits and signs
// that IDNA (UTS #46) maps to ASCII mapped so: "ＡＰＩ．example。com" is
// "api.example.com", the host Go's net/http and browsers connect to. The
// code points IDNA ignores (a soft hyphen, zero-width space, word joiner,
// variation selectors) are dropped: browsers read
// "169.254.169\u00ad.254" as 169.254.169.254.
func canonicalHost(h string) string {
	return strings.ToLower(strings.Map(func(r rune) rune {
		switch {
		case r == '\u00ad' || r == '\u034f' || r >= '\u180b' && r <= '\u180f' || r == '\u200b' ||
			r == '\u2060' || r == '\u2064' || r >= '\ufe00' && r <= '\ufe0f' || r == '\ufeff' ||
			r >= 0x1bca0 && r <= 0x1bca3 || r >= 0xe0100 && r <= 0xe01ef:
			return -1
		case r == '\u3002' || r == '\uff0e' || r == '\uff61':
			return '.'
		case r >= '\uff01' && r <= '\uff5e':
			return r - 0xfee0
		}
		return r
	}, h))
}

// canonicalPath returns the form of a path argument rules match: resolved
// in ws (sandbox.Workspace.Resolve), or without a workspace cleaned
// lexically ("docs/../src.go" is "src.go"). ok is false when the path
// leaves the workspace, or climbs out with ".." where there is none.
func canonicalPath(ws *sandbox.Workspace, p string) (string, bool) {
	if ws != nil {
		rel, err := ws.Resolve(p)
		return rel, err == nil
	}
	c := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if c == ".." || strings.HasPrefix(c, "../") || p == "" {
		return "", false
	}
	return c, true
}
