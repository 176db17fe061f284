package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackEncodedEcho: a tool that echoes a call's secret argument in
// its result text escaped for JSON, base64-encoded, hex-encoded or
// percent-encoded kept it in the audit record (and in logged and returned
// error messages): Scrub, which Message and Output use, looked for the
// value verbatim only.
func TestAttackEncodedEcho(t *testing.T) {
	secret := `p&ss<1>"x\y/9z`
	args, err := json.Marshal(map[string]string{"user": "alice", "password": secret})
	require.NoError(t, err)
	vals := SecretValues(args, nil)
	require.Contains(t, vals, secret)

	goJSON, err := json.Marshal(secret)
	require.NoError(t, err)
	hexed := hex.EncodeToString([]byte(secret))
	echoes := map[string]string{
		"json, Go (HTML-safe)":        string(goJSON[1 : len(goJSON)-1]), // p\u0026ss\u003c1\u003e\"x\\y/9z
		"json, JS and Python":         `p&ss<1>\"x\\y/9z`,
		"json, PHP (slash escaped)":   `p&ss<1>\"x\\y\/9z`,
		"json, Go with slash":         `p\u0026ss\u003c1\u003e\"x\\y\/9z`,
		"base64":                      base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64, unpadded":            base64.RawStdEncoding.EncodeToString([]byte(secret)),
		"base64, URL-safe":            base64.URLEncoding.EncodeToString([]byte(secret)),
		"base64, URL-safe unpadded":   base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"hex":                         hexed,
		"hex, upper case":             strings.ToUpper(hexed),
		"percent, query":              url.QueryEscape(secret),
		"percent, path":               url.PathEscape(secret),
		"percent, encodeURIComponent": `p%26ss%3C1%3E%22x%5Cy%2F9z`,
	}
	for name, echo := range echoes {
		msg := "tool said: " + echo + " (done)"
		assert.Equal(t, "tool said: "+Mask+" (done)", Scrub(msg, vals), name)
		assert.NotContains(t, Message(msg, nil, args), echo, name)
	}

	// Non-ASCII escaped as \uXXXX (Python's and PHP's defaults).
	accented := "pässwörd-42"
	args2, err := json.Marshal(map[string]string{"password": accented})
	require.NoError(t, err)
	assert.Equal(t, "got "+Mask, Message(`got p\u00e4ssw\u00f6rd-42`, nil, args2))

	// Structured output: a string holding the base64 or hex of the secret.
	out := json.RawMessage(`{"echo":"` + echoes["base64"] + `","h":"` + hexed + `"}`)
	assert.JSONEq(t, `{"echo":"[REDACTED]","h":"[REDACTED]"}`, string(Output(out, nil, args)))
}

// TestAttackBase64EchoMidText: a secret inside a larger base64 text (an
// Authorization: Basic value, base64 of "user:secret"; a config file
// encoded whole) is written differently at each of three offsets. Every
// character made of the secret's bits only is masked, whatever the offset.
func TestAttackBase64EchoMidText(t *testing.T) {
	secret := "hunter2-Secret"
	args := json.RawMessage(`{"password":"` + secret + `"}`)
	vals := SecretValues(args, nil)
	require.Equal(t, []string{secret}, vals)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		for _, pre := range []string{"", "a", "ab", "alice:", "x-user:", "user=bob&password="} {
			for _, post := range []string{"", "\n", "; more text that follows"} {
				e := enc.EncodeToString([]byte(pre + secret + post))
				first := (8*len(pre) + 5) / 6           // the first character of the secret's bits only
				end := 8 * (len(pre) + len(secret)) / 6 // and the end of the last
				got := Scrub("[ "+e+" ]", vals)
				i := strings.Index(got, Mask)
				if !assert.GreaterOrEqual(t, i, 0, "%q %q: %q kept whole", pre, post, e) {
					continue
				}
				assert.LessOrEqual(t, i, 2+first, "%q %q: %q → %q", pre, post, e, got)
				assert.LessOrEqual(t, len(got)-i-len(Mask), len(e)-end+2, "%q %q: %q → %q", pre, post, e, got)
			}
		}
	}
	// The common case through Message: a header echoed without its
	// scheme word, which the rule for strings would have seen.
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + secret))
	assert.NotContains(t, Message("upstream saw header value "+basic, nil, args), basic[8:16])
}

// Encoded forms are looked for only for values the verbatim rule looks
// for (4 bytes or more), and ordinary text is left alone.
func TestEncodedEchoLeavesOrdinaryText(t *testing.T) {
	vals := []string{"abc", "1234", "hunter2-Secret"}
	for _, s := range []string{
		"616263 YWJj abc %61%62%63",
		"the quick brown fox jumps over the lazy dog 9876543210 ABCDEFGHIJKLMNOPQRSTUVWXYZ",
		`{"a":"b\"c\\d","e":"f%20g+h"}`,
		"",
	} {
		assert.Equal(t, s, Scrub(s, vals))
	}
	assert.Equal(t, "pin "+Mask+" "+Mask+" "+Mask, Scrub("pin 31323334 MTIzNA== MTIzNA", vals))
}
