package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

var scrubSink string

// BenchmarkScrub measures the echo masking audit records, logs and errors
// pay per call: a short error message, a 64 KiB result text with no echo
// (plain, with long hex runs that can hold an encoded form, and with JSON
// and percent escapes), and a structured output.
func BenchmarkScrub(b *testing.B) {
	args := json.RawMessage(`{"user":"alice","password":"p&ss<1>word-9f8e","headers":{"Authorization":"Bearer tok-0a1b2c3d4e5f"}}`)
	vals := SecretValues(args, nil)
	msg := "login for alice failed: server said 401 for p&ss<1>word-9f8e"
	plain := strings.Repeat("ordinary output line that echoes nothing at all\n", 64<<10/48)
	escaped := strings.Repeat(`{"line":"a \"quoted\" path C:\\dir\\file","url":"https://x.example/a%20b?q=1%2B2"}`+"\n", 64<<10/80)
	ids := strings.Repeat("commit 3632f59a1c0e4d2b8f7a6e5d4c3b2a1908f7e6d5 merged\n", 64<<10/55)
	out := json.RawMessage(`{"items":[` + strings.Repeat(`{"name":"item","state":"ok","note":"caf\\u00e9"},`, 200) + `{"done":true}]}`)
	b.Run("message", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scrubSink = Scrub(msg, vals)
		}
	})
	b.Run("text-64KiB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scrubSink = Scrub(plain, vals)
		}
	})
	b.Run("text-64KiB-hex-ids", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scrubSink = Scrub(ids, vals)
		}
	})
	b.Run("text-64KiB-escaped", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scrubSink = Scrub(escaped, vals)
		}
	})
	b.Run("output-200-objects", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scrubSink = string(Output(out, nil, args))
		}
	})
}
