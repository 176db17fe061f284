package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		noKey bool
		in    string
		want  string
	}{
		{"nothing to hide", nil, false, `{"a":1,"b":"x"}`, `{"a":1,"b":"x"}`},
		{"top-level path", []string{"pin"}, false, `{"pin":"1234","b":2}`, `{"pin":"[REDACTED]","b":2}`},
		{"nested path", []string{"login.pin"}, false, `{"login":{"pin":"1234","user":"bob"}}`, `{"login":{"pin":"[REDACTED]","user":"bob"}}`},
		{"path with no match in shape", []string{"login.pin"}, false, `{"login":"plain","pin":"x"}`, `{"login":"plain","pin":"x"}`},
		{"array elements", []string{"items[].k"}, false, `{"items":[{"k":"a","v":1},{"k":"b","v":2}]}`, `{"items":[{"k":"[REDACTED]","v":1},{"k":"[REDACTED]","v":2}]}`},
		{"arrays transparent to keys", []string{"items.k"}, false, `{"items":[{"k":"a"},{"k":"b"}]}`, `{"items":[{"k":"[REDACTED]"},{"k":"[REDACTED]"}]}`},
		{"whole array element", []string{"pins[]"}, false, `{"pins":["1","2"],"n":1}`, `{"pins":["[REDACTED]","[REDACTED]"],"n":1}`},
		{"nested arrays", []string{"m[][]"}, false, `{"m":[[1,2],[3]]}`, `{"m":[["[REDACTED]","[REDACTED]"],["[REDACTED]"]]}`},
		{"map values", []string{"headers{}"}, false, `{"headers":{"X-A":"1","X-B":"2"}}`, `{"headers":{"X-A":"[REDACTED]","X-B":"[REDACTED]"}}`},
		{"map then key", []string{"env{}.value"}, false, `{"env":{"A":{"value":"s","n":1}}}`, `{"env":{"A":{"value":"[REDACTED]","n":1}}}`},
		{"map root", []string{"{}.pin"}, false, `{"x":{"pin":1},"y":{"pin":2,"q":3}}`, `{"x":{"pin":"[REDACTED]"},"y":{"pin":"[REDACTED]","q":3}}`},
		{"any-key and named merged", []string{"m{}.a", "m.k.b"}, false, `{"m":{"k":{"a":1,"b":2,"c":3}}}`, `{"m":{"k":{"a":"[REDACTED]","b":"[REDACTED]","c":3}}}`},
		{"object value masked whole", []string{"cfg"}, false, `{"cfg":{"a":[1,{"b":2}]},"z":0}`, `{"cfg":"[REDACTED]","z":0}`},
		{"null stays null", []string{"pin"}, false, `{"pin":null}`, `{"pin":null}`},
		{"whitespace kept", []string{"pin"}, false, "{ \"pin\" : \"1\" ,\n \"a\" : 2 }", "{ \"pin\" : \"[REDACTED]\" ,\n \"a\" : 2 }"},
		{"escaped key matches", []string{"pin"}, false, `{"p\u0069n":"1"}`, `{"p\u0069n":"[REDACTED]"}`},
		{"heuristic password", nil, false, `{"user":"bob","password":"hunter2"}`, `{"user":"bob","password":"[REDACTED]"}`},
		{"heuristic deep", nil, false, `{"a":[{"b":{"apiKey":"k1"}}]}`, `{"a":[{"b":{"apiKey":"[REDACTED]"}}]}`},
		{"heuristic header", nil, false, `{"headers":{"Authorization":"Bearer x","Accept":"*/*"}}`, `{"headers":{"Authorization":"[REDACTED]","Accept":"*/*"}}`},
		{"heuristic leaves max_tokens", nil, false, `{"max_tokens":5,"access_token":"t"}`, `{"max_tokens":5,"access_token":"[REDACTED]"}`},
		{"heuristic off", nil, true, `{"password":"p"}`, `{"password":"p"}`},
		{"heuristic off paths on", []string{"password"}, true, `{"password":"p","token":"t"}`, `{"password":"[REDACTED]","token":"t"}`},
		{"value strings with quotes", []string{"pin"}, false, `{"note":"a \"pin\": 1","pin":"x\"y"}`, `{"note":"a \"pin\": 1","pin":"[REDACTED]"}`},
		{"invalid JSON fails safe", nil, false, `{"password":`, `"[REDACTED]"`},
		{"trailing garbage fails safe", nil, false, `{"a":1} x`, `"[REDACTED]"`},
		{"bad literal fails safe", nil, false, `{"a":tru}`, `"[REDACTED]"`},
		{"empty", nil, false, ``, ``},
		{"non-object root", []string{"[]"}, false, `[1,2]`, `["[REDACTED]","[REDACTED]"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compile(tc.paths, WithKeyHeuristic(!tc.noKey))
			require.NoError(t, err)
			got := r.Redact(json.RawMessage(tc.in))
			assert.Equal(t, tc.want, string(got))
			if tc.want != `"[REDACTED]"` && tc.in != "" {
				assert.True(t, json.Valid(got), "output must stay valid JSON: %s", got)
			}
		})
	}
}

func TestRedactDoesNotModifyInput(t *testing.T) {
	in := json.RawMessage(`{"password":"p","a":1}`)
	orig := string(in)
	out := Args(in, nil)
	assert.Equal(t, orig, string(in))
	assert.Equal(t, `{"password":"[REDACTED]","a":1}`, string(out))
}

func TestRedactReturnsInputWhenNothingToHide(t *testing.T) {
	in := json.RawMessage(`{"a":1,"b":[true,null,"x"]}`)
	out := Args(in, []string{"c"})
	require.NotEmpty(t, out)
	assert.Same(t, &in[0], &out[0], "the fast path returns the input without copying")
}

func TestCompileErrors(t *testing.T) {
	for _, p := range []string{"", "  ", "a..b", ".a", "a."} {
		_, err := Compile([]string{p})
		assert.Error(t, err, "path %q", p)
	}
	// A bad path in Args fails safe: everything is masked.
	assert.Equal(t, `"[REDACTED]"`, string(Args(json.RawMessage(`{"a":1}`), []string{"a..b"})))
}

func TestLooksSecret(t *testing.T) {
	tests := map[string]bool{
		"password": true, "Password": true, "db_password": true, "userPassword": true, "passwd": true,
		"token": true, "access_token": true, "refreshToken": true, "X-Auth-Token": true,
		"secret": true, "client_secret": true, "clientSecret": true, "secret_key": true,
		"api_key": true, "apiKey": true, "APIKey": true, "x-api-key": true, "apikey": true, "API_KEY": true,
		"authorization": true, "Authorization": true, "credential": true, "credentials": true,
		"private_key": true, "privateKey": true,
		"max_tokens": false, "token_count": false, "tokenizer": false, "keyword": false, "key": false,
		"monkey": false, "author": false, "path": false, "query": false, "": false, "tokens": false,
	}
	for k, want := range tests {
		assert.Equal(t, want, LooksSecret(k), "LooksSecret(%q)", k)
	}
}

func TestDeepNestingFailsSafe(t *testing.T) {
	in := strings.Repeat("[", maxDepth+10) + strings.Repeat("]", maxDepth+10)
	assert.Equal(t, `"[REDACTED]"`, string(Args(json.RawMessage(in), nil)))
}

func TestArgsCache(t *testing.T) {
	paths := []string{"a", "b.c"}
	in := json.RawMessage(`{"a":1,"b":{"c":2}}`)
	want := `{"a":"[REDACTED]","b":{"c":"[REDACTED]"}}`
	assert.Equal(t, want, string(Args(in, paths)))
	assert.Equal(t, want, string(Args(in, paths)), "cached redactor gives the same answer")
}

func ExampleArgs() {
	args := json.RawMessage(`{"user":"bob","password":"hunter2","items":[{"key":"k1","n":1}]}`)
	fmt.Println(string(Args(args, []string{"items[].key"})))
	// Output: {"user":"bob","password":"[REDACTED]","items":[{"key":"[REDACTED]","n":1}]}
}

var benchSink json.RawMessage

func BenchmarkRedact(b *testing.B) {
	clean := json.RawMessage(`{"query":"what is the weather in Paris","limit":10,"filters":{"lang":"en","safe":true},"items":[{"name":"a"},{"name":"b"}]}`)
	secret := json.RawMessage(`{"query":"what is the weather in Paris","limit":10,"auth":{"token":"abc","user":"bob"},"items":[{"key":"a"},{"key":"b"}]}`)
	paths := []string{"auth.token", "items[].key"}
	b.Run("baseline-copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = append(json.RawMessage(nil), clean...)
		}
	})
	b.Run("clean", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = Args(clean, paths)
		}
	})
	b.Run("clean-no-paths", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = Args(clean, nil)
		}
	})
	// The value-named shapes (headers, env, argv) with nothing to hide.
	shapes := json.RawMessage(`{"headers":[{"name":"Accept","value":"text/html"}],"args":["ls","-la","/tmp"],"q":"weather in Paris"}`)
	b.Run("clean-shapes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = Args(shapes, nil)
		}
	})
	b.Run("clean-compiled", func(b *testing.B) {
		r := MustCompile(paths)
		b.ReportAllocs()
		for b.Loop() {
			benchSink = r.Redact(clean)
		}
	})
	b.Run("with-secrets", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = Args(secret, paths)
		}
	})
	b.Run("unmarshal-remarshal", func(b *testing.B) {
		// What a naive redactor costs: decode to a map and encode again.
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			_ = json.Unmarshal(secret, &m)
			benchSink, _ = json.Marshal(m)
		}
	})
}

// FuzzArgsOutputIsValidJSON holds Args to its contract, which the audit
// extension relies on to skip validating arguments again: whatever the
// input, the output is valid JSON (the input's own bytes, a rewrite, or the
// mask).
func FuzzArgsOutputIsValidJSON(f *testing.F) {
	f.Add([]byte(`{"password":"x","items":[{"key":1}],"n":1.5e3}`), "items[].key")
	f.Add([]byte(`{"a" : "\u00e9\"", "token": {"b": [true, null]}}`), "a")
	f.Add([]byte(`[1, 2`), "")
	f.Add([]byte(`{"a":01}`), "a")
	f.Add([]byte(`{"x":[1,{"argv":["curl","-u","me:pw","a\u003cb"]}],"y":["sshpass","-p","pw"]}`), "x[]")
	f.Add([]byte(`{"a":["mysql","--password","pw1","-ppw2","Cookie:","a=b c"]}`), "")
	f.Fuzz(func(t *testing.T, args []byte, path string) {
		var paths []string
		if path != "" {
			paths = []string{path}
		}
		out := Args(args, paths)
		if len(args) == 0 {
			return // empty arguments stay empty
		}
		if !json.Valid(out) {
			t.Fatalf("Args(%q, %q) = %q: not valid JSON", args, paths, out)
		}
	})
}

// Message applies the one rule, then masks the secret values of each
// argument set it is given (the call's, and those it was asked with),
// wherever the message quotes them.
func TestMessageMasksEchoesOfEachArgumentSet(t *testing.T) {
	asked := json.RawMessage(`{"pin":"739164","user":"ann"}`)
	ran := json.RawMessage(`{"pin":"555123","user":"ann"}`)
	msg := "pin 739164 rejected, then pin 555123; token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	got := Message(msg, []string{"pin"}, ran, asked)
	for _, leak := range []string{"739164", "555123", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
		if strings.Contains(got, leak) {
			t.Errorf("Message left %q in %q", leak, got)
		}
	}
	if !strings.Contains(got, "rejected") {
		t.Errorf("Message lost the text: %q", got)
	}
	if got := Message("user ann", []string{"pin"}, ran); got != "user ann" {
		t.Errorf("Message masked a value that is not secret: %q", got)
	}
}
