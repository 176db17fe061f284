package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// shortestEncoded, which decides when a text is searched for encoded
// forms, is the length of the shortest form appendEncoded gives.
func TestShortestEncoded(t *testing.T) {
	for n := minEcho; n <= 80; n++ {
		v := strings.Repeat("k", n)
		forms := appendEncoded(nil, v)
		m := len(forms[0])
		for _, f := range forms {
			m = min(m, len(f))
		}
		assert.Equal(t, m, shortestEncoded(n), n)
	}
}

func TestHasRun(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want bool
	}{
		{"", 1, false},
		{"abc", 3, true},
		{"abc", 4, false},
		{"ab cd ef", 3, false},
		{"xx yy abcdef", 6, true},
		{"abcde.fghij k", 6, false},
		{"a.b.c.d.e.f.aGVsbG8gd29y", 12, true},
		{"dGVz+/-_==", 10, true},
		{strings.Repeat("abcde ", 100) + "abcdef", 6, true},
		{strings.Repeat("abcde ", 100), 6, false},
	} {
		assert.Equal(t, tc.want, hasRun(tc.s, tc.n), "%q %d", tc.s, tc.n)
	}
}

// Views map what they find back to whole escapes of the text, whatever the
// escapes decode to (one byte, a multi-byte rune, a surrogate pair).
func TestScrubViews(t *testing.T) {
	vals := []string{"pässwörd-😀-42", "a b+c%d", "k~~~secret??"} // the last is a35+fnNlY3JldD8/ in base64
	for in, want := range map[string]string{
		`x p\u00e4ssw\u00f6rd-\ud83d\ude00-42 y`:     "x " + Mask + " y",
		`x p\u00E4ssw\u00F6rd-\uD83D\uDE00-42 y`:     "x " + Mask + " y",
		`x p%C3%A4ssw%c3%b6rd-%F0%9F%98%80-42 y`:     "x " + Mask + " y",
		"x a+b%2Bc%25d y":                            "x " + Mask + " y",
		"x a%20b%2bc%25d y":                          "x " + Mask + " y",
		"x a b+c%d y":                                "x " + Mask + " y",
		`x a b+c\u0025d y`:                           "x " + Mask + " y",
		`\u0000 %00 \ud83d %zz \q % \ trailing \u12`: `\u0000 %00 \ud83d %zz \q % \ trailing \u12`,
		`x a35+fnNlY3JldD8\/ y`:                      "x " + Mask + " y",
		"x a35%2BfnNlY3JldD8%2f y":                   "x " + Mask + " y",
		"nul\x00 a b+c%d \x00":                       "nul\x00 " + Mask + " \x00",
	} {
		assert.Equal(t, want, Scrub(in, vals), in)
	}
}

// Scrub does not panic on any text, and leaves no echo of a value in it:
// as it is, JSON-escaped, percent-encoded, in hex or in base64.
func FuzzScrub(f *testing.F) {
	f.Add("pin 1234 %31%32 \\u0031 MTIz", "1234")
	f.Add(`\ud83d\ude00 %F0%9F \\ \/ %`, "😀-x\\/")
	f.Add("aaaaaaaa", "aaaa")
	f.Fuzz(func(t *testing.T, s, v string) {
		// Values the mask holds parts of, and those json.Marshal changes
		// (invalid UTF-8), are only checked not to panic.
		if len(v) < minEcho || strings.ContainsAny(v, "[]REDACT\x00") || !utf8.ValidString(v) {
			_ = Scrub(s, []string{v})
			return
		}
		js, _ := json.Marshal(v)
		echoes := []string{v, hex.EncodeToString([]byte(v)), base64.StdEncoding.EncodeToString([]byte(v))}
		// An escaped echo right after an unfinished escape ("%" then
		// "01%21": "%01") is not what an encoder writes: it is read as
		// the escape.
		if !strings.ContainsAny(s[max(0, len(s)-6):], `%\`) {
			echoes = append(echoes, string(js[1:len(js)-1]), url.QueryEscape(v))
		}
		for _, echo := range echoes {
			got := Scrub(s+echo+s, []string{v})
			if strings.Contains(got, echo) {
				t.Fatalf("Scrub(%q) = %q keeps %q", s+echo+s, got, echo)
			}
		}
	})
}

// A structured output builds one scrubber for all its strings, and finds
// encoded echoes in keys and strings at any depth.
func TestOutputEncodedEcho(t *testing.T) {
	args := json.RawMessage(`{"password":"hunter2-Secret"}`)
	out := json.RawMessage(`{"a":[{"b":"x aHVudGVyMi1TZWNyZXQ= y"}],"68756e746572322d536563726574":1,"c":"hunter2%2DSecret"}`)
	assert.JSONEq(t, `{"a":[{"b":"x [REDACTED] y"}],"[REDACTED]":1,"c":"[REDACTED]"}`, string(Output(out, nil, args)))
}
