package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"math/big"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
)

// MaxDepth bounds how deeply a value checked against a schema may nest
// objects and arrays. The validator's work on a failing value grows with
// the cube of its depth (each error spells out its whole path through the
// schema): a tree schema's arguments nested 2,000 levels deep (12 KB)
// took 52 s to refuse. Tool arguments nest a handful of levels.
const MaxDepth = 64

// maxWork bounds the work of validating one value, in units of about one
// schema applied to one JSON value (a microsecond or so): about a second.
// A schema whose anyOf, oneOf or allOf alternatives (or overlapping
// properties and patternProperties) refer back to it applies 2^depth
// schemas to a value nested depth levels deep: a few hundred bytes of
// arguments could keep a core busy for hours. Plain arguments of 1 MB
// (the executor's default limit) cost well under it.
const maxWork = 1 << 20

// costWalk follows the validator's steps over a value without doing them,
// adding up their cost; it stops as soon as the total passes maxWork.
type costWalk struct {
	work float64
	// scope is the chain of schemas being applied, as the validator keeps
	// it: every error it builds spells out this chain, which costs its
	// length squared.
	scope []*jsonschema.Schema
	// inplace is where the schemas applied to the current value (through
	// $ref, allOf, ...) start in scope: one of them applied again to the
	// same value is a loop, which the validator refuses.
	inplace int
	// path is the value's location: the validator writes it out for
	// every value it descends into.
	path    []seg
	pathLen int
	// over is the location where the work passed maxWork, or where
	// content too deep is (then deep is set).
	over []string
	deep bool
	// twin is the property a key at over names in another case (see
	// caseTwin), when that stopped the walk.
	twin string
	// times is how many times the validator checks the value: each unit
	// is charged that many times.
	times float64
	// floatInts are the locations of integers a float64 reads as another
	// value (past 2^53) that a schema without "integer" in its type
	// judges by value (see floatJudged).
	floatInts [][]seg
	// negated counts the not and if subschemas the walk is inside, where a
	// value passes for failing a rule (see floatJudged).
	negated int
}

// checkCostTimes returns a *FieldErrors when validating v against s
// times times (Validate checks a value twice when a float64 reads one of
// its numbers otherwise; each step is charged times over) would take more
// than maxWork, or when v nests deeper than MaxDepth or holds a number out
// of range (see numberOK), or names a property in another case (see
// caseTwin), naming where.
func checkCostTimes(s *jsonschema.Schema, v any, times float64) error {
	_, err := checkCost(s, v, times)
	return err
}

// checkCost is checkCostTimes, and also returns the locations of the
// integers past 2^53 that a schema judges as a float64 field would read
// them (see floatJudged): Validate checks them rounded too.
func checkCost(s *jsonschema.Schema, v any, times float64) (floatInts [][]seg, err error) {
	if !shapeOK(v, 0) {
		p, rule := badPath(v, nil)
		return nil, &FieldErrors{Fields: []FieldError{{Path: shortPath(p), Rule: rule}}}
	}
	w := walks.Get().(*costWalk)
	defer func() {
		*w = costWalk{scope: w.scope[:0], path: w.path[:0]}
		walks.Put(w)
	}()
	w.times = times
	if w.apply(s, v) {
		return w.floatInts, nil
	}
	return nil, w.err()
}

// err is the error of a walk that stopped.
func (w *costWalk) err() error {
	if w.deep {
		return &FieldErrors{Fields: []FieldError{{Path: shortPath(w.over), Rule: fmt.Sprintf("holds JSON content nested more than %d objects and arrays deep: send flatter content (at most %d levels)", MaxDepth, MaxDepth)}}}
	}
	if w.twin != "" {
		return &FieldErrors{Fields: []FieldError{{Path: shortPath(w.over), Rule: fmt.Sprintf("names the field %q in another case, which a decoder may take for %q without the schema's rules for it: send it as %q", w.twin, w.twin, w.twin)}}}
	}
	return &FieldErrors{Fields: []FieldError{{Path: shortPath(w.over), Rule: fmt.Sprintf("checking this value against the schema would take more than %d steps (a schema whose anyOf, oneOf or allOf alternatives refer back to it multiplies them at every level of nesting; uniqueItems and a long enum compare values one by one): send fewer or less deeply nested values here, or simplify the schema", maxWork)}}}
}

var walks = sync.Pool{New: func() any { return &costWalk{} }}

// maxNumberLen and maxExponent bound how a number may be written: the
// validator turns every number into an exact fraction, which for
// 1e1000000 has a million digits (57 ms) and for 1e10000000 does not
// exist (the validator panicked). float64 spans 5e-324 to 1.8e308.
const (
	maxNumberLen = 64
	maxExponent  = 400
)

// numberOK reports whether n is written within maxNumberLen characters
// and with an exponent of at most maxExponent either way.
func numberOK(n json.Number) bool {
	if len(n) > maxNumberLen {
		return false
	}
	if i := strings.IndexAny(string(n), "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(string(n[i+1:]), "+"))
		return err == nil && e <= maxExponent && e >= -maxExponent
	}
	return true
}

// readsAsZero reports whether n is not zero but a float64 reads it as
// zero: strconv.ParseFloat, and so encoding/json, reads a number below
// float64's smallest (about 5e-324) as 0, or -0, without an error, while
// the validator reads it exactly, so 1e-400 passed exclusiveMinimum 0 and
// a Go tool ran with 0. Only a number with an exponent can be that small
// within maxNumberLen characters.
func readsAsZero(n json.Number) bool {
	i := strings.IndexAny(string(n), "eE")
	if i < 0 {
		return false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && f == 0 && strings.ContainsAny(string(n[:i]), "123456789")
}

// schemaValuesOK returns an error naming the first number in raw (a
// valid JSON object) that numberOK refuses (the validator's compiler
// turns a schema's bounds into the same exact fractions), or the first
// pattern whose program would be larger than maxRegexSize.
func schemaValuesOK(raw json.RawMessage) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("schema is not a JSON object: %v", err)
	}
	total := 0 // instructions of the patterns so far
	pattern := func(p, at string) error {
		n := regexSize(p)
		if n < 0 {
			return nil // the compiler says what is wrong with it
		}
		if n > maxRegexSize {
			return fmt.Errorf("schema's pattern %.40q at %s compiles to more than %d instructions (repetition counts multiply): write a simpler pattern", p, at, maxRegexSize)
		}
		if total += n; total > maxRegexTotal {
			return fmt.Errorf("schema's patterns compile to more than %d instructions in all (the last at %s): write simpler patterns, or fewer", maxRegexTotal, at)
		}
		return nil
	}
	var walk func(v any, at string) error
	walk = func(v any, at string) error {
		switch x := v.(type) {
		case json.Number:
			if !numberOK(x) {
				return fmt.Errorf("schema has a number out of range at %s: write numbers within %d characters and an exponent within ±%d", at, maxNumberLen, maxExponent)
			}
		case map[string]any:
			if p, ok := x["pattern"].(string); ok {
				if err := pattern(p, at+"/pattern"); err != nil {
					return err
				}
			}
			if pp, ok := x["patternProperties"].(map[string]any); ok {
				for p := range pp {
					if err := pattern(p, at+"/patternProperties"); err != nil {
						return err
					}
				}
			}
			for k, c := range x {
				if err := walk(c, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")); err != nil {
					return err
				}
			}
		case []any:
			for i, c := range x {
				if err := walk(c, at+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(v, "#")
}

// maxRegexSize bounds the program a regular expression from a schema or
// an argument checked with "format":"regex" compiles to: Go's matching is
// linear, but in the input times the program, and compiling
// [a-z]{1,1000} fifty times over (650 bytes, 100,000 instructions) takes
// a third of a second. Real patterns are tens to hundreds.
const maxRegexSize = 20000

// maxRegexTotal bounds the instructions of all of a schema's patterns
// together: each is compiled two or three times when the schema is.
const maxRegexTotal = 100000

// regexSize estimates the instructions of the program
// regexp.Compile makes of s, stopping just past maxRegexSize; -1 when s
// does not parse.
func regexSize(s string) int {
	re, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		return -1
	}
	return progSize(re)
}

func progSize(re *syntax.Regexp) int {
	n := 1
	for _, c := range re.Sub {
		n = min(n+progSize(c), maxRegexSize+1)
	}
	switch re.Op {
	case syntax.OpLiteral:
		n += max(len(re.Rune)-1, 0)
	case syntax.OpRepeat:
		k := re.Max
		if k < 0 {
			k = re.Min + 1
		}
		n *= max(k, 1)
	}
	return min(n, maxRegexSize+1)
}

// regexOK reports whether s parses and is within maxRegexSize.
func regexOK(s string) bool {
	n := regexSize(s)
	return n >= 0 && n <= maxRegexSize
}

// isRegex is the "regex" format with regexOK's bound.
func isRegex(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	if !regexOK(s) {
		return false
	}
	_, err := regexp.Compile(s)
	return err == nil
}

// patternSizes caches regexSize of compiled patterns.
var patternSizes sync.Map // *regexp.Regexp -> int

func patternSize(re *regexp.Regexp) int {
	if n, ok := patternSizes.Load(re); ok {
		return n.(int)
	}
	n := max(regexSize(re.String()), 1)
	patternSizes.Store(re, n)
	return n
}

// shapeOK reports whether v, at depth, nests no object or array deeper
// than MaxDepth and holds no number numberOK refuses, nor one readsAsZero.
func shapeOK(v any, depth int) bool {
	switch x := v.(type) {
	case json.Number:
		return numberOK(x) && !readsAsZero(x)
	case map[string]any:
		if depth >= MaxDepth {
			return false
		}
		for _, c := range x {
			if !shapeOK(c, depth+1) {
				return false
			}
		}
	case []any:
		if depth >= MaxDepth {
			return false
		}
		for _, c := range x {
			if !shapeOK(c, depth+1) {
				return false
			}
		}
	}
	return true
}

// badPath returns the path of a value in v that shapeOK refuses, and
// the rule it breaks.
func badPath(v any, path []string) ([]string, string) {
	switch x := v.(type) {
	case json.Number:
		if numberOK(x) {
			return append([]string{}, path...), "this number is too small for a float64, which reads it as 0 (a float64 spans 5e-324 to 1.8e308): send 0, or a number of at least 5e-324"
		}
		return append([]string{}, path...), fmt.Sprintf("this number is out of range: send a number within %d characters and an exponent within ±%d (a float64 spans 5e-324 to 1.8e308)", maxNumberLen, maxExponent)
	case map[string]any:
		if len(path) >= MaxDepth {
			break
		}
		for k, c := range x {
			if !shapeOK(c, len(path)+1) {
				return badPath(c, append(path, k))
			}
		}
	case []any:
		if len(path) >= MaxDepth {
			break
		}
		for i, c := range x {
			if !shapeOK(c, len(path)+1) {
				return badPath(c, append(path, strconv.Itoa(i)))
			}
		}
	}
	return append([]string{}, path...), fmt.Sprintf("nested more than %d objects and arrays deep: send flatter arguments (at most %d levels)", MaxDepth, MaxDepth)
}

// shortPath shows a location as FieldError paths do, cut to its first
// and last few names when long.
func shortPath(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	p := pointerToPath(b.String())
	const keep = 100 // bytes at each end
	if len(p) > 2*keep {
		p = textcut.Head(p, keep) + "..." + textcut.Tail(p, keep)
	}
	return p
}

// charge adds units of work and reports whether the total is still
// within maxWork.
func (w *costWalk) charge(units float64) bool {
	w.work += units * w.times
	if w.work > maxWork {
		if w.over == nil {
			w.over = w.location()
		}
		return false
	}
	return true
}

// apply adds the cost of applying s to v in place (the value the caller
// is at) and reports whether the total is within maxWork. It counts
// every step the validator may take: both branches of if, every
// alternative of anyOf and oneOf.
func (w *costWalk) apply(s *jsonschema.Schema, v any) bool {
	if s == nil {
		return true
	}
	for _, o := range w.scope[w.inplace:] {
		if o == s {
			return true // a loop: the validator stops here with an error
		}
	}
	d := float64(len(w.scope) + 1)
	// One unit, the error's chain (a few bytes per schema, copied once
	// per schema), and the value's location (written out once).
	if !w.charge(1 + d*d/64 + float64(w.pathLen)/4096) {
		return false
	}
	if str, ok := v.(string); ok {
		// Patterns, formats, lengths and enums read the whole string; a
		// pattern's program runs over it, a regex is compiled.
		units := float64(len(str)) / 1024
		if s.Pattern != nil {
			units += float64(len(str)) * float64(patternSize(s.Pattern)) / 128
		}
		if s.Format == "regex" {
			units += float64(max(regexSize(str), 0)) / 8
		}
		if !w.charge(units) {
			return false
		}
	}
	if len(s.Enum) > 1 && !w.charge(float64(len(s.Enum))/32) {
		return false // each value is compared with v
	}
	if (len(s.Enum) > 0 || len(s.Constant) > 0) && !w.charge(w.compareCost(s, v)) {
		return false
	}
	if arr, ok := v.([]any); ok && s.UniqueItems && len(arr) > 1 && !w.chargeUnique(arr) {
		return false
	}
	if n, ok := v.(json.Number); ok {
		if !w.charge(numberRulesCost(s, n) + integerTypeCost(s.Types, n)) {
			return false
		}
		if floatJudged(s, n, w.negated > 0) && len(w.floatInts) < maxFloatInts && (w.negated > 0 || !w.integerTyped(s)) {
			w.floatInts = append(w.floatInts, slices.Clone(w.path))
		}
	}
	if s.Always != nil || !typeMatches(s.Types, v) {
		return true
	}
	w.scope = append(w.scope, s)
	ok := w.children(s, v) && w.inPlace(s, v)
	w.scope = w.scope[:len(w.scope)-1]
	return ok
}

// uniqueLimit is the longest list whose items uniqueItems compares pair by
// pair (jsonschema v5); it hashes each item of a longer one once.
const uniqueLimit = 20

// chargeUnique adds the cost of uniqueItems on arr: the validator compares
// every pair of up to uniqueLimit items, each comparison reading the
// smaller item whole (and turning each number of both into an exact
// fraction: a unit), and hashes each item of a longer list once (its
// numbers turned the same way). It does so before it checks the items, so
// 20 lists of 25,000 numbers in a list of strings (1 MB) cost 4.75 million
// number comparisons: 8 s and 1.1 GB.
func (w *costWalk) chargeUnique(arr []any) bool {
	factor := 0.5 // hashed once
	if len(arr) <= uniqueLimit {
		factor = float64(len(arr) - 1) // compared with each other item, at most
	}
	limit := (maxWork-w.work)/factor + 1
	total := 0.0
	for _, it := range arr {
		if total += equalCost(it, limit-total); total > limit {
			break
		}
	}
	if !w.charge(total * factor) {
		return false
	}
	if len(arr) <= uniqueLimit {
		return true
	}
	// The validator compares an item with each earlier one of its hash,
	// and its hash writes a string's bytes with no length: ["a\u0003a"]
	// and ["a","a"] hash alike whatever the seed, and 8,000 distinct lists
	// of one hash (957 KB) took 1.5 s. Items are hashed here as it hashes
	// them, and each comparison within a hash is charged.
	type bucket struct {
		first any
		n     int
	}
	var h maphash.Hash
	seen := make(map[uint64]*bucket, len(arr))
	for _, it := range arr {
		h.Reset()
		uniqueHash(it, &h)
		k := h.Sum64()
		b := seen[k]
		if b == nil {
			seen[k] = &bucket{first: it, n: 1}
			continue
		}
		if !w.charge(float64(b.n) * max(equalCost(it, maxWork), 1.0/8)) {
			return false
		}
		if reflect.DeepEqual(it, b.first) {
			return true // the validator stops at an equal pair
		}
		b.n++
	}
	return true
}

// uniqueHash writes v to h as jsonschema v5 does to find equal items of
// a list under uniqueItems: a type byte, then a string's bytes, a
// number's exact fraction (numerator and denominator), a list's items, an
// object's sorted keys and values, with no lengths.
func uniqueHash(v any, h *maphash.Hash) {
	switch x := v.(type) {
	case nil:
		h.WriteByte(0)
	case bool:
		h.WriteByte(1)
		if x {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	case json.Number:
		h.WriteByte(2)
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			h.Write(r.Num().Bytes())
			h.Write(r.Denom().Bytes())
		}
	case string:
		h.WriteByte(3)
		h.WriteString(x)
	case []any:
		h.WriteByte(4)
		for _, c := range x {
			uniqueHash(c, h)
		}
	case map[string]any:
		h.WriteByte(5)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			h.WriteByte(3)
			h.WriteString(k)
			uniqueHash(x[k], h)
		}
	}
}

// numberWeight is the cost, in units, of turning n into an exact fraction
// (fmt.Sprint and big.Rat, about 256 bytes for a number of up to 16 digits
// and an exponent float64 reads directly): more for each digit past that
// and more again for each power of ten, the fraction growing with both. A
// number of 54 digits and an exponent of 399, within numberOK, costs some
// seven times as much: 900 of them against an enum of 1,000 numbers
// allocated 1.7 GB at a unit each.
func numberWeight(n json.Number) float64 {
	s, exp := string(n), 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, _ = strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		s = s[:i]
	}
	if exp < 0 {
		exp = -exp
	}
	return 1 + float64(max(len(s)-16, 0))/20 + float64(max(exp-22, 0))/70
}

// numberRulesCost is the cost of checking n against s's minimum, maximum,
// exclusiveMinimum, exclusiveMaximum and multipleOf: the validator turns n
// into an exact fraction once (fmt.Sprint, big.Rat: two units) and
// compares it with each bound or divides it by multipleOf (a unit each),
// all growing with n's weight. Charged a unit as any value, 1 MB of
// numbers (1.5 x 250,000) under minimum, maximum and multipleOf passed
// the bound and took 1.7 s (some 7 µs, 7 units, a number) and 250 MB.
func numberRulesCost(s *jsonschema.Schema, n json.Number) float64 {
	rules := 0
	for _, r := range [...]*big.Rat{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf} {
		if r != nil {
			rules++
		}
	}
	if rules == 0 {
		return 0
	}
	return float64(2+rules) * numberWeight(n)
}

// integerTypeCost is the cost of the type check of n against types: the
// validator turns a number into an exact fraction (fmt.Sprint, big.Rat)
// to see whether it is whole when "integer" comes before any "number" in
// types: half numberWeight (one fraction, no comparison). Charged
// nothing, 15,000 numbers of 54 digits and an exponent of 399 under
// "type":"integer" allocated some 1,900 bytes per unit charged, plain
// values some 330; now some 410.
func integerTypeCost(types []string, n json.Number) float64 {
	for _, t := range types {
		switch t {
		case "number":
			return 0
		case "integer":
			return numberWeight(n) / 2
		}
	}
	return 0
}

// maxFloatInts bounds how many locations a walk keeps for floatJudged
// integers; past it, every integer of the value is checked rounded.
const maxFloatInts = 1024

// floatJudged reports whether s judges n by a bound or multipleOf while
// its type does not say "integer" (or says "number" too, which admits a
// float64 field's number), and n is an integer a float64 reads as
// another value: 9007199254740995 reads as 9007199254740996, onto an
// exclusiveMaximum of 9007199254740996 and off a multipleOf of 5. A
// "number" field of a Go tool is a float64 (the reflected schema of an
// int field says "integer", which an int64 or uint64 reads exactly), so
// such a number must pass as a float64 reads it too. A schema with no type
// is taken as a float64's: an int64 field's should say "integer". An enum
// or const counts only when negated (s is applied under not, or as an
// if's condition): a number equal to a member as sent reads as the member
// reads, and one not equal is refused as sent, but under not a number
// not equal is what passes: not const 9007199254740996 passed
// 9007199254740995, read as 9007199254740996.
func floatJudged(s *jsonschema.Schema, n json.Number, negated bool) bool {
	if s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil && s.MultipleOf == nil &&
		!(negated && (len(s.Enum) > 0 || len(s.Constant) > 0)) {
		return false
	}
	if slices.Contains(s.Types, "integer") && !slices.Contains(s.Types, "number") {
		return false // an int64 or uint64 reads it exactly
	}
	_, ok := integerReading(n)
	return ok
}

// integerReading returns the number a float64 reads n as, when n is an
// integer written without a fraction or an exponent (float64Reading
// leaves those out) that a float64 does not hold: one past 2^53.
func integerReading(n json.Number) (json.Number, bool) {
	s := strings.TrimPrefix(string(n), "-")
	if len(s) <= 15 || strings.ContainsAny(s, ".eE") {
		return "", false // 15 digits are below 2^53: a float64 holds them
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return "", false
	}
	r := strconv.FormatFloat(f, 'g', -1, 64)
	if sameDecimal(string(n), r) {
		return "", false
	}
	return json.Number(r), true
}

// equalCost is the cost of comparing or hashing v whole: numberWeight per
// number, a little for each other value; it stops counting past limit.
func equalCost(v any, limit float64) float64 {
	switch x := v.(type) {
	case json.Number:
		return numberWeight(x)
	case string:
		return 1.0/16 + float64(len(x))/4096
	case []any:
		c := 1.0 / 16
		for _, it := range x {
			if c += equalCost(it, limit-c); c > limit {
				break
			}
		}
		return c
	case map[string]any:
		c := 1.0 / 16
		for _, it := range x {
			if c += 1.0/8 + equalCost(it, limit-c); c > limit {
				break
			}
		}
		return c
	}
	return 1.0 / 16
}

// compareCost is the cost, past the loop itself, of comparing v with
// s's enum members and const: the validator turns a number and each
// number it is compared with into exact fractions (fmt.Sprint, big.Rat: a
// unit), and reads a list or an object as deep as one of the same kind.
// 30,000 numbers against an enum of 1,000 took 21 s and 3.9 GB.
func (w *costWalk) compareCost(s *jsonschema.Schema, v any) float64 {
	kind := jsonKind(v)
	same := 0
	members := 0.0 // the weights of the number members past a unit each
	for _, l := range [...][]any{s.Enum, s.Constant[:min(len(s.Constant), 1)]} {
		for _, m := range l {
			if jsonKind(m) == kind {
				same++
				if n, ok := m.(json.Number); ok {
					members += numberWeight(n) - 1
				}
			}
		}
	}
	switch x := v.(type) {
	case json.Number:
		return float64(same)*numberWeight(x) + members
	case []any, map[string]any:
		if same > 0 {
			return float64(same) * equalCost(v, (maxWork-w.work)/float64(same)+1)
		}
	}
	return 0
}

// inPlace adds the cost of the schemas s applies to v itself.
func (w *costWalk) inPlace(s *jsonschema.Schema, v any) bool {
	if s.Ref != nil && !w.apply(s.Ref, v) {
		return false
	}
	if s.RecursiveRef != nil || s.DynamicRef != nil || s.Not != nil || s.If != nil {
		for i, c := range [...]*jsonschema.Schema{recursiveRef(s, w.scope), s.DynamicRef, s.Not, s.If, s.Then, s.Else} {
			neg := i == 2 || i == 3 // not, if: a value passes for failing them
			if neg {
				w.negated++
			}
			ok := w.apply(c, v)
			if neg {
				w.negated--
			}
			if !ok {
				return false
			}
		}
	}
	for _, l := range [...][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range l {
			if !w.apply(c, v) {
				return false
			}
		}
	}
	return true
}

// recursiveRef is the schema a $recursiveRef applies, found as the
// validator finds it.
func recursiveRef(s *jsonschema.Schema, scope []*jsonschema.Schema) *jsonschema.Schema {
	r := s.RecursiveRef
	if r != nil && r.RecursiveAnchor {
		for _, o := range scope {
			if o.RecursiveAnchor {
				return o
			}
		}
	}
	return r
}

// typeMatches reports whether the validator goes past the type check
// (an integer-valued number may be an "integer").
func typeMatches(types []string, v any) bool {
	if len(types) == 0 {
		return true
	}
	kind := jsonKind(v)
	if _, ok := v.(map[string]any); ok {
		kind = "object"
	}
	for _, t := range types {
		if t == kind || (t == "integer" && kind == "number") {
			return true
		}
	}
	return false
}

// seg is one step of a location: a key, or an index when key is unset.
type seg struct {
	key   string
	index int
}

func (s seg) String() string {
	if s.index >= 0 {
		return strconv.Itoa(s.index)
	}
	return s.key
}

func (s seg) len() int {
	if s.index >= 0 {
		return len(strconv.Itoa(s.index))
	}
	return len(s.key)
}

// location is the current value's path.
func (w *costWalk) location() []string {
	out := make([]string, len(w.path))
	for i, s := range w.path {
		out[i] = s.String()
	}
	return out
}

// descend adds the cost of applying s to the value c at step under the
// current one.
func (w *costWalk) descend(s *jsonschema.Schema, c any, step seg) bool {
	if s == nil {
		return true
	}
	inplace, n := w.inplace, 1+step.len()
	w.path = append(w.path, step)
	w.pathLen += n
	w.inplace = len(w.scope)
	ok := w.apply(s, c)
	w.inplace = inplace
	w.pathLen -= n
	w.path = w.path[:len(w.path)-1]
	return ok
}

// children adds the cost of the schemas s applies to the values inside v
// (and to the content of a string).
func (w *costWalk) children(s *jsonschema.Schema, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			step := seg{key: k, index: -1}
			matched := false
			if ps, ok := s.Properties[k]; ok {
				matched = true
				if !w.descend(ps, c, step) {
					return false
				}
			} else if len(s.Properties) > 0 {
				// caseTwin compares the key with each name (some 15 ns).
				if !w.charge(float64(len(s.Properties)) / 64) {
					return false
				}
				if name := caseTwin(s.Properties, k); name != "" && !w.declaredInPlace(k) {
					w.path = append(w.path, step)
					w.over, w.twin = w.location(), name
					return false
				}
			}
			if s.PropertyNames != nil && !w.descend(s.PropertyNames, k, step) {
				return false
			}
			for re, ps := range s.PatternProperties {
				if re.MatchString(k) {
					matched = true
					if !w.descend(ps, c, step) {
						return false
					}
				}
			}
			if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !matched {
				if !w.descend(ap, c, step) {
					return false
				}
			}
			if !w.descend(s.UnevaluatedProperties, c, step) {
				return false
			}
			if dep, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
				if !w.apply(dep, v) {
					return false
				}
			}
			if !w.apply(s.DependentSchemas[k], v) {
				return false
			}
		}
	case []any:
		for i, c := range x {
			key := seg{index: i}
			var item *jsonschema.Schema
			switch it := s.Items.(type) {
			case *jsonschema.Schema:
				item = it
			case []*jsonschema.Schema:
				if i < len(it) {
					item = it[i]
				} else if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
					item = ai
				}
			}
			if i < len(s.PrefixItems) {
				if !w.descend(s.PrefixItems[i], c, key) {
					return false
				}
			} else if !w.descend(s.Items2020, c, key) {
				return false
			}
			for _, cs := range []*jsonschema.Schema{item, s.Contains, s.UnevaluatedItems} {
				if !w.descend(cs, c, key) {
					return false
				}
			}
		}
	case string:
		if s.ContentSchema != nil {
			if !w.charge(float64(len(x)) / 256) {
				return false
			}
			if content, ok := decodeContent(s, x); ok {
				if !shapeOK(content, len(w.path)) {
					// The validator's own work on it is past any bound.
					w.over, w.deep = w.location(), true
					return false
				}
				// The content is a value of its own, at the string's
				// location.
				inplace := w.inplace
				w.inplace = len(w.scope)
				ok := w.apply(s.ContentSchema, content)
				w.inplace = inplace
				return ok
			}
		}
	}
	return true
}

// caseTwin returns the property of props that key, not one of them, names
// in another case, or "". encoding/json fills a struct field from a key
// that matches its name as strings.EqualFold does ("DIR", "Dir", "ſrc"
// with U+017F for "src", "\u212Aind" with the Kelvin sign for "kind"), the
// last such key winning, while the validator checks a property's rules
// only under its exact name: a schema open to other keys passed
// {"dir":"ok","Dir":"/etc"} with /etc unchecked, and the Go tool ran with
// it. Such keys are refused wherever the schema names the property.
func caseTwin(props map[string]*jsonschema.Schema, key string) string {
	twin := ""
	for name := range props {
		if strings.EqualFold(key, name) && (twin == "" || name < twin) {
			twin = name // the same one every time
		}
	}
	return twin
}

// maxDeclaredLook bounds the schemas declaredInPlace reads for one key.
const maxDeclaredLook = 256

// declaredInPlace reports whether key is a property, under its exact name,
// of a schema that applies to the current value whenever the schemas being
// applied to it do: one of them, or one they apply through $ref or allOf.
// Such a key is checked by that property's rules, and a decoder fills the
// field of its exact name first, as when one properties names both twins
// (allOf [{path}, {Path}] is the same object as {path, Path}). anyOf and
// oneOf branches, and if/then/else, are alternatives: a key one of them
// names is not declared for the others.
//
// It reads at most maxDeclaredLook schemas, a schema reached twice read
// twice (a loop through $ref ends there: not declared), and allocates
// nothing; each schema read is charged 1/32 unit. A look runs for every
// such key in every schema naming its twin: with a map of the schemas
// seen and 1/64 unit each, 100 allOf members naming one property and
// its 1,023 other spellings sent (25 KB) allocated 2,790 bytes per unit
// charged, and 250 members took 9.8 s and 4.6 GB within the work bound.
func (w *costWalk) declaredInPlace(key string) bool {
	budget := maxDeclaredLook
	found := false
	for _, s := range w.scope[w.inplace:] {
		if found = declares(s, key, &budget); found {
			break
		}
	}
	w.charge(float64(maxDeclaredLook-budget) / 32)
	return found
}

// integerTyped reports whether s, or a schema applied to the value
// whenever s is (one of the schemas being applied to it, or one that it
// or they apply through $ref or allOf), says the value is an integer (its
// type says "integer" and not "number"): the field is then an integer's,
// which reads a big integer exactly, as when s's own type says so (see
// floatJudged). {"type":"integer","$ref":"#/$defs/i64"}, the bounds in
// the $ref, refused 9223372036854775807, read by a float64 as 2^63. An
// alternative (anyOf, oneOf) that says "integer" does not count. It reads
// at most maxDeclaredLook schemas, each charged 1/32 unit.
func (w *costWalk) integerTyped(s *jsonschema.Schema) bool {
	budget := maxDeclaredLook
	found := typedInteger(s, &budget)
	for i := w.inplace; i < len(w.scope) && !found; i++ {
		found = typedInteger(w.scope[i], &budget)
	}
	w.charge(float64(maxDeclaredLook-budget) / 32)
	return found
}

// typedInteger reports whether s, or a schema it applies through $ref or
// allOf, has a type that says "integer" and not "number", reading at most
// *budget schemas.
func typedInteger(s *jsonschema.Schema, budget *int) bool {
	if s == nil || *budget <= 0 {
		return false
	}
	*budget--
	if slices.Contains(s.Types, "integer") && !slices.Contains(s.Types, "number") {
		return true
	}
	if typedInteger(s.Ref, budget) {
		return true
	}
	for _, c := range s.AllOf {
		if typedInteger(c, budget) {
			return true
		}
	}
	return false
}

// declares reports whether s, or a schema it applies through $ref or
// allOf, names key among its properties, reading at most *budget schemas
// (each one read takes one).
func declares(s *jsonschema.Schema, key string, budget *int) bool {
	if s == nil || *budget <= 0 {
		return false
	}
	*budget--
	if _, ok := s.Properties[key]; ok {
		return true
	}
	if declares(s.Ref, key, budget) {
		return true
	}
	for _, c := range s.AllOf {
		if declares(c, key, budget) {
			return true
		}
	}
	return false
}

// decodeContent decodes a string's content as the validator does for
// contentSchema: base64 first when the schema says so, then JSON.
func decodeContent(s *jsonschema.Schema, str string) (any, bool) {
	b := []byte(str)
	if s.ContentEncoding == "base64" {
		var err error
		if b, err = base64.StdEncoding.DecodeString(str); err != nil {
			return nil, false
		}
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
