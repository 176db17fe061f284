package schema

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// float64View returns v with each number a float64 reads as another value
// (see float64Reading) replaced by that value, and whether there was any.
// The validator reads a number exactly, a Go tool's float64 field as
// strconv.ParseFloat rounds it: 0.99999999999999999999 passed
// exclusiveMaximum 1 and the tool ran with 1. Validate checks this view
// too, so the value a float64 holds is one the schema allows.
func float64View(v any) (any, bool) {
	return numberView(v, nil, func(n json.Number, _ []seg) (json.Number, bool) { return float64Reading(n) })
}

// numberView returns v with each number that read replaces (read is given
// the number and where it is, below at; with at nil, no location is kept,
// and none allocated, on every call's path) replaced, copying only the
// objects and lists on the way to one, and whether there was any.
func numberView(v any, at []seg, read func(n json.Number, at []seg) (json.Number, bool)) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		return read(x, at)
	case map[string]any:
		var out map[string]any
		for k, c := range x {
			if r, ok := numberView(c, below(at, seg{key: k, index: -1}), read); ok {
				if out == nil {
					out = maps.Clone(x)
				}
				out[k] = r
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, c := range x {
			if r, ok := numberView(c, below(at, seg{index: i}), read); ok {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = r
			}
		}
		if out != nil {
			return out, true
		}
	}
	return nil, false
}

// below is the location s below at, nil when at is (none kept).
func below(at []seg, s seg) []seg {
	if at == nil {
		return nil
	}
	return append(at, s)
}

// float64Reading returns the number a float64 reads n as, written as
// strconv.FormatFloat writes it, when that is not n's value. Only a number
// with a fraction or an exponent counts: an integer is read exactly into
// an integer field (and one past 2^53 into a float64 field is left to the
// bounds a schema sets on it), and a number past float64's range is
// refused by encoding/json, which fails closed.
func float64Reading(n json.Number) (json.Number, bool) {
	s := string(n)
	exp := strings.ContainsAny(s, "eE")
	if !exp && (len(s) <= 16 || !strings.Contains(s, ".")) {
		// An integer, or at most 15 digits and no smaller than 1e-15: a
		// float64 holds every such decimal distinctly, and prints it back.
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", false
	}
	r := strconv.FormatFloat(f, 'g', -1, 64)
	if sameDecimal(s, r) {
		return "", false
	}
	return json.Number(r), true
}

// integerView returns v with the integers at locs (see floatJudged)
// replaced by the number a float64 reads (integerReading), every such
// integer when all is set, and whether there was any.
func integerView(v any, locs [][]seg, all bool) (any, bool) {
	set := make(map[string]bool, len(locs))
	for _, l := range locs {
		set[locKey(l)] = true
	}
	return numberView(v, make([]seg, 0, 8), func(n json.Number, at []seg) (json.Number, bool) {
		if all || set[locKey(at)] {
			return integerReading(n)
		}
		return "", false
	})
}

// locKey is a location as integerView keys it.
func locKey(l []seg) string {
	var b strings.Builder
	for _, s := range l {
		b.WriteByte(0)
		b.WriteString(s.String())
	}
	return b.String()
}

// sameDecimal reports whether two JSON numbers have the same value.
func sameDecimal(a, b string) bool {
	an, ad, ae := decimal(a)
	bn, bd, be := decimal(b)
	return an == bn && ad == bd && ae == be
}

// decimal returns n's sign, its significant digits (no leading or trailing
// zeros; "" for zero) and the power of ten of the last of them.
func decimal(n string) (neg bool, digits string, exp int) {
	neg = strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		exp, _ = strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
		n = n[:i]
	}
	whole, frac, _ := strings.Cut(n, ".")
	digits = strings.TrimLeft(whole+frac, "0")
	exp -= len(frac)
	t := strings.TrimRight(digits, "0")
	exp += len(digits) - len(t)
	if t == "" {
		return false, "", 0
	}
	return neg, t, exp
}
