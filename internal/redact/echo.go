package redact

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// minBase64Part is the shortest run of base64 characters Scrub looks for
// where a value sits inside a larger encoded text (base64 of
// "user:secret"): 6 characters, 36 bits, which ordinary words and other
// encoded data do not hold by chance. Values of 5 bytes or more have such
// a run at every offset; a 4-byte value is found in base64 alone.
const minBase64Part = 6

// scrubber finds a call's secret values in texts, in the forms Scrub
// lists: the values as they are (plain) and encoded (hex, base64), in a
// text and behind the escapes views decode. Output builds one for all the
// strings of an output. It is not safe for concurrent use.
type scrubber struct {
	plain    finder   // the values, and their spaces written "+"
	forms    []string // those, to which finderFor adds the encoded forms
	encode   []string // the values looked for encoded
	all      *finder  // forms, built for the first text that can hold an encoded one
	shortest int      // the length of the shortest encoded form; 0: none
	// work is how many bytes its finds have read for the long and tiny
	// forms, over every text it scrubbed: one bound (maxLongScan) for
	// all, or an output of many short strings would cost the bound for
	// each.
	work int
}

// over reports whether sc read more than maxLongScan bytes: what it
// scrubs is masked whole from then on.
func (sc *scrubber) over() bool { return sc != nil && sc.work > maxLongScan }

// maxEncoded is how many values (the longest) a scrubber looks for in
// encoded forms: each has up to 12, and a call can have 65,534 values
// (a 1 MiB command of password=... pairs). The others are looked for as
// they are.
const maxEncoded = 1024

// newScrubber returns a scrubber for values, nil when none is 4 bytes or
// longer (minEcho).
func newScrubber(values []string) *scrubber {
	var vs []string
	for _, v := range values {
		if len(v) >= minEcho && v != Mask {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	vs = longestFirst(vs)
	plain := slices.Clone(vs)
	for _, v := range vs {
		if strings.IndexByte(v, ' ') >= 0 {
			plain = append(plain, strings.ReplaceAll(v, " ", "+"))
		}
		// An HTML page's echo: as html.EscapeString, html/template (which
		// also escapes '+', common in base64 keys) and other servers
		// (&quot;, &#x27;) write it.
		if strings.ContainsAny(v, htmlSpecial) {
			for _, r := range htmlEscapers {
				if e := r.Replace(v); e != v {
					plain = append(plain, e)
				}
			}
		}
	}
	// Found in any ASCII case: scrub searches the text lower-cased.
	for i, p := range plain {
		plain[i] = asciiLower(p)
	}
	plain = longestFirst(plain)
	sc := &scrubber{plain: newFinder(plain), forms: plain, encode: vs[:min(len(vs), maxEncoded)]}
	for _, v := range sc.encode {
		if n := shortestEncoded(len(v)); sc.shortest == 0 || n < sc.shortest {
			sc.shortest = n
		}
	}
	return sc
}

// htmlSpecial are the characters an HTML page escapes in text it echoes.
const htmlSpecial = `&<>"'+`

// htmlEscapers write a value as HTML pages echo it.
var htmlEscapers = []*strings.Replacer{
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;"),               // html.EscapeString
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;"), // html/template
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;"),             // Python's html.escape, others
}

// shortestEncoded is the length of the shortest form appendEncoded gives
// a value of n bytes.
func shortestEncoded(n int) int {
	m := min(2*n, (4*n+2)/3) // hex; base64 without padding
	for o := range 3 {
		if p := 8*(o+n)/6 - (8*o+5)/6; p >= minBase64Part {
			m = min(m, p)
		}
	}
	return m
}

// longestFirst sorts vs longest first, and drops repeats: at a place where
// several forms match, the Replacer takes the first listed.
func longestFirst(vs []string) []string {
	slices.SortFunc(vs, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(vs)
}

// finderFor returns the finder for t: the one with the encoded forms when
// t has a run of characters of theirs as long as the shortest.
func (sc *scrubber) finderFor(t string) *finder {
	if sc.shortest == 0 || !hasRun(t, sc.shortest) {
		return &sc.plain
	}
	if sc.all == nil {
		forms := slices.Clip(sc.forms)
		for _, v := range sc.encode {
			forms = appendEncoded(forms, v)
		}
		for i := len(sc.forms); i < len(forms); i++ {
			forms[i] = asciiLower(forms[i])
		}
		f := newFinder(longestFirst(forms))
		sc.all = &f
	}
	return sc.all
}

// encodedChar holds the characters of hex and base64 (standard and
// URL-safe, with padding).
var encodedChar = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=" {
		t[c] = true
	}
	return t
}()

// hasRun reports whether t has n (> 0) encodedChar in a row. It reads a
// window of n from its end back: at the first byte that is not one, the
// next window starts after it, so ordinary text is read about one byte in
// a word.
func hasRun(t string, n int) bool {
	for i := 0; i+n <= len(t); {
		j := i + n - 1
		for j >= i && encodedChar[t[j]] {
			j--
		}
		if j < i {
			return true
		}
		i = j + 1
	}
	return false
}

// finder finds where any of a list of forms (longest first) occurs.
type finder struct {
	short *strings.Replacer // forms up to scrubShort bytes; a match becomes matchCodes[len]
	// long holds the longer forms, and those of 8 bytes or more that hold
	// a NUL, by their first 8 bytes (prefix8), longest first; first is
	// the set of their first two bytes.
	long  map[uint64][]string
	first *[1 << 16 / 64]uint64
	tiny  []string // forms under 8 bytes that hold a NUL: searched one by one
}

// newFinder compiles forms, longest first. Short forms are found in one
// pass: one search of the text per value made 65,534 values (a 1 MiB
// command of password=... pairs) take 19 s on a 1 MiB output. Long ones
// are looked for where the text has one's first 8 bytes (find), which
// keeps the pass's lookups short.
func newFinder(forms []string) finder {
	var f finder
	var pairs []string
	for _, s := range forms {
		switch {
		case len(s) <= scrubShort && strings.IndexByte(s, 0) < 0:
			pairs = append(pairs, s, matchCodes[len(s)])
		case len(s) < 8:
			f.tiny = append(f.tiny, s)
		default:
			if f.long == nil {
				f.long, f.first = map[uint64][]string{}, new([1 << 16 / 64]uint64)
			}
			k := prefix8(s, 0)
			f.long[k] = append(f.long[k], s)
			f.first[uint16(k)/64] |= 1 << (uint16(k) % 64)
		}
	}
	if len(pairs) > 0 {
		f.short = strings.NewReplacer(pairs...)
	}
	return f
}

// prefix8 is the 8 bytes of t at p as a number.
func prefix8(t string, p int) uint64 {
	_ = t[p+7]
	return uint64(t[p]) | uint64(t[p+1])<<8 | uint64(t[p+2])<<16 | uint64(t[p+3])<<24 |
		uint64(t[p+4])<<32 | uint64(t[p+5])<<40 | uint64(t[p+6])<<48 | uint64(t[p+7])<<56
}

// matchCodes[n] is what a finder's Replacer writes for a match of n
// bytes: n between two NULs, so that spanWriter learns where matches are
// without a copy of the text.
var matchCodes = func() (c [scrubShort + 1]string) {
	for n := range c {
		c[n] = "\x00" + strconv.Itoa(n) + "\x00"
	}
	return c
}()

// appendEncoded appends to forms the ways v is written encoded: in hex,
// lower and upper case; in base64, standard and URL-safe, padded or not,
// and the characters made of v's bits only at each of the three offsets v
// can have inside a larger encoded text (those of minBase64Part characters
// or more). JSON escapes and percent-encoding are not forms: views decode
// them in the text.
func appendEncoded(forms []string, v string) []string {
	from := len(forms)
	h := hex.EncodeToString([]byte(v))
	forms = addForm(forms, from, h)
	forms = addForm(forms, from, strings.ToUpper(h))
	std := base64.StdEncoding.EncodeToString([]byte(v))
	forms = addBase64(forms, from, std)
	forms = addBase64(forms, from, strings.TrimRight(std, "="))
	buf := make([]byte, 2+len(v))
	copy(buf[2:], v)
	for o := range 3 {
		// v after o bytes: the characters from the first whole one of its
		// bits to the last (a character holds 6 bits, a byte 8).
		e := base64.StdEncoding.EncodeToString(buf[2-o:])
		if part := e[(8*o+5)/6 : 8*(o+len(v))/6]; len(part) >= minBase64Part {
			forms = addBase64(forms, from, part)
		}
	}
	return forms
}

// addBase64 adds a standard base64 form and its URL-safe spelling.
func addBase64(forms []string, from int, f string) []string {
	forms = addForm(forms, from, f)
	if strings.ContainsAny(f, "+/") {
		forms = addForm(forms, from, urlSafe.Replace(f))
	}
	return forms
}

var urlSafe = strings.NewReplacer("+", "-", "/", "_")

// addForm appends f unless forms[from:] (one value's forms) has it.
func addForm(forms []string, from int, f string) []string {
	if slices.Contains(forms[from:], f) {
		return forms
	}
	return append(forms, f)
}

// scrub masks in s every form of the values, found in s itself or in a
// view of it with JSON escapes or percent-encoding decoded, in any ASCII
// case: the forms are lower-cased, and so is each text searched (which
// keeps every byte where it is).
func (sc *scrubber) scrub(s string) string {
	if sc == nil || s == "" {
		return s
	}
	if sc.over() {
		return Mask
	}
	lower := asciiLower(s)
	spans, ok := sc.finderFor(lower).find(lower, nil, &sc.work)
	if !ok {
		return Mask
	}
	for _, k := range viewKinds {
		text, ok := k.decode(s, nil)
		if !ok {
			continue
		}
		text = asciiLower(text)
		found, ok := sc.finderFor(text).find(text, nil, &sc.work)
		if !ok {
			return Mask
		}
		if len(found) == 0 {
			continue
		}
		// Where the escapes were is needed only now: decode again.
		v := view{text: text}
		k.decode(s, &v.esc)
		for _, sp := range found {
			spans = append(spans, v.source(sp))
		}
	}
	return maskSpans(s, spans)
}

// asciiLower returns s with its ASCII capitals lower-cased (s itself when
// it has none): every byte stays where it is.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// span is a part [from, to) of a text.
type span struct{ from, to int }

// find appends to spans where the forms occur in t. ok is false when
// finding the long and tiny forms would make total, the bytes read for
// them by the scrubber's finds so far, more than maxLongScan: the caller
// masks t whole.
func (f *finder) find(t string, spans []span, total *int) (_ []span, ok bool) {
	if f.short != nil {
		u := t
		if strings.IndexByte(u, 0) >= 0 { // a NUL would read as a match's code; no short form holds one
			u = strings.ReplaceAll(u, "\x00", "\x01")
		}
		w := spanWriter{spans: spans}
		from := len(spans)
		_, _ = f.short.WriteString(&w, u)
		spans = w.spans
		var ok bool
		if spans, ok = f.overlaps(u, spans, from, total); !ok {
			return spans, false
		}
	}
	work := *total // bytes read for the long and tiny forms, this t's added
	defer func() {
		if longSearched != nil {
			longSearched(work - *total)
		}
		*total = work
	}()
	for _, s := range f.tiny {
		if work += len(t); work > maxLongScan {
			return spans, false
		}
		for off := 0; ; {
			k := strings.Index(t[off:], s)
			if k < 0 {
				break
			}
			spans = append(spans, span{off + k, off + k + len(s)})
			off += k + len(s)
		}
	}
	if f.long == nil {
		return spans, true
	}
	last := -1 // the span this loop appended last: overlapping ones join it
	for p := 0; p+8 <= len(t); p++ {
		k := uint16(t[p]) | uint16(t[p+1])<<8
		if f.first[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, s := range f.long[prefix8(t, p)] {
			n := commonPrefix(t[p:], s)
			work += n + 1
			if n < len(s) {
				continue
			}
			// The group is longest first: the first match covers the rest.
			if last >= 0 && p < spans[last].to {
				spans[last].to = max(spans[last].to, p+n)
			} else {
				spans, last = append(spans, span{p, p + n}), len(spans)
			}
			break
		}
		if work > maxLongScan {
			return spans, false
		}
	}
	return spans, true
}

// overlaps appends to spans the short forms' matches in t that start
// inside one of spans[i:] (and inside those, in turn): the Replacer goes on
// after a match, so an echo starting inside the last one (the same value
// written twice overlapping, or another value) would keep its end. Each
// match's own window of t is searched once; the bytes read count in
// total, as find's for the long forms.
func (f *finder) overlaps(t string, spans []span, i int, total *int) ([]span, bool) {
	var seen []bool // by start in t; made at the first overlap
	for ; i < len(spans); i++ {
		sp := spans[i]
		if sp.to-sp.from < 2 {
			continue
		}
		w := t[sp.from+1 : min(len(t), sp.to-1+scrubShort)]
		if *total += len(w); *total > maxLongScan {
			return spans, false
		}
		sw := spanWriter{pos: sp.from + 1}
		_, _ = f.short.WriteString(&sw, w)
		for _, s := range sw.spans {
			if s.from >= sp.to {
				break // the pass found it, or a window will
			}
			if seen == nil {
				seen = make([]bool, len(t))
			}
			if !seen[s.from] {
				seen[s.from] = true
				spans = append(spans, s)
			}
		}
	}
	return spans, true
}

// commonPrefix returns how many bytes a and b start with alike.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// maxLongScan bounds how many bytes a scrubber's finds read, over every
// text it scrubs (a text and its views, an output's strings), for the forms
// its one pass does not find: the long ones, compared where the text has
// one's first 8 bytes, and the tiny ones, searched one by one. A call's
// 1 MiB command of password=... pairs has about 14,000 values of 65
// bytes; searched one by one, as they were, a 1 MiB message of one
// repeated letter took 62 s. A text that would take more is masked whole,
// and so is every later text of that scrubber (Output masks the output
// whole): an echo is never kept.
const maxLongScan = 64 << 20

// longSearched, when set (by a test), is told how many bytes each find
// read for the long and tiny forms.
var longSearched func(n int)

// spanWriter reads what the scrubber's Replacer writes (the text, with
// matchCodes for its matches) and keeps where the matches are.
type spanWriter struct {
	pos    int  // in the text
	inCode bool // between a code's NULs
	n      int  // the code's number so far
	spans  []span
}

func (w *spanWriter) WriteString(s string) (int, error) {
	for i := 0; i < len(s); {
		if !w.inCode {
			k := strings.IndexByte(s[i:], 0)
			if k < 0 {
				w.pos += len(s) - i
				break
			}
			w.pos += k
			i += k + 1
			w.inCode, w.n = true, 0
			continue
		}
		c := s[i]
		i++
		if c == 0 {
			w.spans = append(w.spans, span{w.pos, w.pos + w.n})
			w.pos += w.n
			w.inCode = false
		} else {
			w.n = w.n*10 + int(c-'0')
		}
	}
	return len(s), nil
}

func (w *spanWriter) Write(p []byte) (int, error) { return w.WriteString(string(p)) }

// maskSpans returns s with each span (or run of overlapping spans)
// replaced by the mask.
func maskSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var sb strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		sp := spans[i]
		for i++; i < len(spans) && spans[i].from < sp.to; i++ {
			sp.to = max(sp.to, spans[i].to)
		}
		sb.WriteString(s[last:sp.from])
		sb.WriteString(Mask)
		last = sp.to
	}
	sb.WriteString(s[last:])
	return sb.String()
}

// view is a text with one kind of escape decoded, and where each escape
// decoded came from, so that what is found in the view is masked in the
// text.
type view struct {
	text string
	esc  []escape
}

// escape: the view's bytes [v0, v1) are the text's [s0, s1) decoded.
type escape struct{ v0, v1, s0, s1 int }

// source returns the part of the text that sp of the view came from,
// widened to whole escapes.
func (v *view) source(sp span) span {
	return span{v.at(sp.from, false), v.at(sp.to, true)}
}

// at returns the place in the text of the view's place p: the start of an
// escape p falls in, or its end for the end of a span.
func (v *view) at(p int, end bool) int {
	i := sort.Search(len(v.esc), func(i int) bool {
		if end {
			return v.esc[i].v1 >= p
		}
		return v.esc[i].v1 > p
	})
	if i < len(v.esc) {
		if e := v.esc[i]; e.v0 < p || (!end && e.v0 == p) {
			if end {
				return e.s1
			}
			return e.s0
		}
	}
	if i == 0 {
		return p
	}
	e := v.esc[i-1]
	return e.s1 + p - e.v1
}

// viewKind is a kind of escape a view decodes: those that start with c,
// which unescape reads at the start of its argument, saying what the
// escape stands for (a rune, or a byte when raw) and how long it is (0:
// not an escape, kept as it is).
type viewKind struct {
	c        byte
	raw      bool
	unescape func(s string) (r rune, n int)
}

var viewKinds = [...]viewKind{{'\\', false, unescapeJSON}, {'%', true, unescapePercent}}

// decode returns s with its escapes of kind k decoded, and appends where
// they were to esc when it is not nil. ok is false when s has none.
func (k viewKind) decode(s string, esc *[]escape) (text string, ok bool) {
	var sb strings.Builder
	last := 0
	for i := strings.IndexByte(s, k.c); i >= 0; {
		r, n := k.unescape(s[i:])
		if n > 0 {
			if !ok {
				sb.Grow(len(s))
				ok = true
			}
			sb.WriteString(s[last:i])
			v0 := sb.Len()
			if k.raw {
				sb.WriteByte(byte(r))
			} else {
				sb.WriteRune(r)
			}
			if esc != nil {
				*esc = append(*esc, escape{v0, sb.Len(), i, i + n})
			}
			last = i + n
		} else {
			n = 1
		}
		j := strings.IndexByte(s[i+n:], k.c)
		if j < 0 {
			break
		}
		i += n + j
	}
	if !ok {
		return "", false
	}
	sb.WriteString(s[last:])
	return sb.String(), true
}

// unescapeJSON reads a JSON string escape: \" \\ \/ \b \f \n \r \t and
// \uXXXX (surrogate pairs included; \u0000 is not decoded).
func unescapeJSON(s string) (rune, int) {
	if len(s) < 2 {
		return 0, 0
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(s[2:])
		switch {
		case !ok || r == 0:
			return 0, 0
		case utf16.IsSurrogate(r):
			if len(s) < 12 || s[6] != '\\' || s[7] != 'u' {
				return 0, 0
			}
			lo, ok := hex4(s[8:])
			if r = utf16.DecodeRune(r, lo); !ok || r == utf8.RuneError {
				return 0, 0
			}
			return r, 12
		}
		return r, 6
	}
	return 0, 0
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := range 4 {
		d, ok := hexDigit(s[i])
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// unescapePercent reads %XX (either case; %00 is not decoded). A "+" for
// a space is a form the scrubber looks for, not decoded: a value may hold
// a "+".
func unescapePercent(s string) (rune, int) {
	if len(s) < 3 {
		return 0, 0
	}
	hi, ok1 := hexDigit(s[1])
	lo, ok2 := hexDigit(s[2])
	if !ok1 || !ok2 || hi|lo == 0 {
		return 0, 0
	}
	return rune(hi<<4 | lo), 3
}
