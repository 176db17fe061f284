package httptool

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// Which config values count as credentials: the fixed text of headers and
// query parameters whose names look secret by redact.LooksSecret, split
// into what an echo may show, from 8 bytes on.
func TestConfigSecrets(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"api key header", Config{Headers: map[string]string{"X-Api-Key": "ak_live_123456"}}, []string{"ak_live_123456"}},
		{"api-key header", Config{Headers: map[string]string{"api-key": "0123456789abcdef"}}, []string{"0123456789abcdef"}},
		{"bearer written whole", Config{Headers: map[string]string{"Authorization": "Bearer sk-proj-abcdef"}}, []string{"Bearer sk-proj-abcdef", "sk-proj-abcdef"}},
		{"proxy authorization", Config{Headers: map[string]string{"Proxy-Authorization": "Basic dXNlcjpwYXNzd29yZA=="}}, []string{"Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="}},
		{"cookies: the values", Config{Headers: map[string]string{"Cookie": `sid="s3ss10n-id-99"; theme=dark`}}, []string{`sid="s3ss10n-id-99"; theme=dark`, "s3ss10n-id-99"}},
		{"private token", Config{Headers: map[string]string{"Private-Token": "glpat-xyzxyzxyz"}}, []string{"glpat-xyzxyzxyz"}},
		{"argument-filled: the model's own", Config{Headers: map[string]string{"Authorization": "Bearer {token}", "X-Api-Key": "{key}"}}, nil},
		{"fixed text beside an argument", Config{Headers: map[string]string{"X-Auth-Token": "tenant-secret-77:{user}"}}, []string{"tenant-secret-77:"}},
		{"shorter than 8 bytes", Config{Headers: map[string]string{"X-Api-Key": "abc1234", "Cookie": "a=b"}}, nil},
		{"names that say nothing", Config{Headers: map[string]string{"X-Tenant": "acme-corporation", "Accept": "application/json"}, Query: map[string]string{"format": "extended-json"}}, nil},
		{"query key", Config{Query: map[string]string{"api_key": "qk_0123456789", "state": "{state}"}}, []string{"qk_0123456789"}},
		{"query access token", Config{Query: map[string]string{"access_token": "at_0123456789"}}, []string{"at_0123456789"}},
		{"the URL's fixed query", Config{URL: "https://api.example.com/x?client_secret=cs_0123456789&page_size=100000000"}, []string{"cs_0123456789"}},
		// Terse names, as Google's APIs and presigned URLs write them.
		{"a bare key parameter", Config{URL: "https://api.example.com/x?key=AIzaSyA-0123456789"}, []string{"AIzaSyA-0123456789"}},
		{"a signature", Config{Query: map[string]string{"sig": "sv0123456789abcdef", "X-Amz-Signature": "f00dbabe12345678"}}, []string{"f00dbabe12345678", "sv0123456789abcdef"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			if cfg.URL == "" {
				cfg.URL = "https://api.example.com/x"
			}
			tl, err := New(tool.Spec{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`)}, cfg)
			require.NoError(t, err)
			assert.ElementsMatch(t, tc.want, tl.secrets)
		})
	}
}

// However a body made of echoes arrives (in chunks of odd sizes, with
// the stream held to the end past maxStreamHeld), what is streamed is
// what masking the whole body gives.
func TestStreamedEchoesMatchTheMaskedWhole(t *testing.T) {
	const secret = "qk+live/Fz3Ys6Ae9Io"
	unit := "a=" + url.QueryEscape(secret) + " b=" + secret + ` c="\u0071k+live\/Fz3Ys6Ae9Io" ` + base64.StdEncoding.EncodeToString([]byte(secret)) + "\n"
	body := strings.Repeat(unit, (maxStreamHeld+4096)/len(unit))
	want := newRedactor(secret).string(body)
	require.NotContains(t, want, "Fz3Ys6")
	for _, size := range []int{7, 113, 4096, 32 << 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			for _, stuck := range []bool{false, true} {
				r := newRedactor(secret)
				r.streamStuck = stuck
				var got strings.Builder
				ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { got.Write(ev.Data) })
				for i := 0; i < len(body); i += size {
					if safe := r.write([]byte(body[i:min(i+size, len(body))])); len(safe) > 0 {
						r.emit(ctx, safe)
					}
				}
				r.emit(ctx, r.flush())
				r.drain(ctx)
				assert.Equal(t, want, got.String(), "stuck %v", stuck)
			}
		})
	}
}

// Masked structured output keeps its shape: strings stay strings, the
// keys that are not secret and their order-independent content stay, a
// number that is a secret becomes the mask, and output with escapes but
// no secret is returned byte for byte.
func TestMaskedOutputStaysJSON(t *testing.T) {
	r := newRedactor("4111111111111111", "sk-live-abcdefgh")
	for _, tc := range []struct{ in, want string }{
		{`{"a": "x",  "b": 1}`, `{"a": "x",  "b": 1}`},
		{`{"a": "caf\u00e9 \"q\""}`, `{"a": "caf\u00e9 \"q\""}`},
		{`{"card":4111111111111111,"k":"sk-live-abcdefgh","n":[1,"sk-live-abcdefgh x"]}`, `{"card":"[REDACTED]","k":"[REDACTED]","n":[1,"[REDACTED] x"]}`},
		{`{"e":"\u0073k-live-abcdefgh","<tag>":"a&b"}`, `{"<tag>":"a&b","e":"[REDACTED]"}`},
		{`{"sk-live-abcdefgh":true}`, `{"[REDACTED]":true}`},
		// A repeated key: the decoder keeps the last value, so the
		// earlier one (here an escaped secret) is dropped, not kept.
		{`{"e":"\u0073k-live-abcdefgh","e":"y"}`, `{"e":"y"}`},
		{`{"o":{"e":"\u0073k-live-abcdefgh","\u0065":1},"p":[{"e":1},{"e":2}]}`, `{"o":{"e":1},"p":[{"e":1},{"e":2}]}`},
		{`[{"e":"caf\u00e9"},{"e":"caf\u00e9"}]`, `[{"e":"caf\u00e9"},{"e":"caf\u00e9"}]`},
	} {
		got := r.json(json.RawMessage(tc.in))
		assert.True(t, json.Valid(got), "%s", got)
		assert.Equal(t, tc.want, string(got), "%s", tc.in)
	}
}
