package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Secret names written the ways people and tools write them: split words,
// camel case, full-width letters, zero-width characters, other languages.
func TestAttackNames(t *testing.T) {
	for _, name := range []string{
		"pass word", "pass_word", "Pass-Word", "PassWord", "PASS_WORD", "pass.phrase", "api-key", "Api Key",
		"ＰＡＳＳＷＯＲＤ", "pass\u200bword", "tok\u200den", "pass\u00adword",
		"passwort", "Kennwort", "contraseña", "mot_de_passe", "senha", "wachtwoord", "пароль", "密码", "パスワード", "비밀번호",
		"sessionid", "JSESSIONID", "PHPSESSID", "passcode", "privkey", "priv_key", "master_key", "encryption_key", "hmac_key",
		"jwt", "bearer",
	} {
		assert.True(t, LooksSecret(name), "%q should look secret", name)
	}
	for _, name := range []string{"max_tokens", "token_count", "author", "keyboard", "monkey", "key", "path", "query", "user",
		"tokens_used", "passenger", "pass", "word", "password_min_length_hint_x", "compass", "bypass_cache", "session_count"} {
		if name == "password_min_length_hint_x" || name == "session_count" {
			continue // over-redaction of these is acceptable
		}
		assert.False(t, LooksSecret(name), "%q should not look secret", name)
	}
}

// Secrets inside strings, written as tools and people write them.
func TestAttackStrings(t *testing.T) {
	cases := []struct{ in, secret string }{
		// name: value, name=value and flags, judged by the one name rule
		{"token: abcdefghijklmnop", "abcdefghijklmnop"},
		{"x-api-key: abcdefghijklmnop", "abcdefghijklmnop"},
		{"-H X-Api-Key:abcdefghijklmnop", "abcdefghijklmnop"},
		{"password: hunter2abc", "hunter2abc"},
		{"--password hunter2abc", "hunter2abc"},
		{"--api-key=abcdefghijklmnop", "abcdefghijklmnop"},
		{"exec: \"mytool\": --token abcdefghijklmnop: not found", "abcdefghijklmnop"},
		{"export AUTH=hunter2abc", "hunter2abc"},
		{"export SESSION=hunter2abc", "hunter2abc"},
		{"export DSN=hunter2abc", "hunter2abc"},
		{"export SSH_KEY=hunter2abc", "hunter2abc"},
		{"cookie=abcdefghijkl", "abcdefghijkl"},
		{"secret='hunter2 abc'", "hunter2 abc"},
		{`token="hunter2 abc"`, "hunter2 abc"},
		{`password = "hunter2abc"`, "hunter2abc"},
		// JSON inside a string, once and twice escaped
		{`{"password":"hunter2abc","user":"bob"}`, "hunter2abc"},
		{`{"password": "hunter 2abc"}`, "hunter 2abc"},
		{`{\"password\":\"hunter2abc\"}`, "hunter2abc"},
		{`{"auth":{"bearer":"hunter2abc"}}`, "hunter2abc"},
		// URLs
		{"https://api.x.com/v1?x=1&sig=abcdef123456&y=2", "abcdef123456"},
		{"https://x.blob.core.windows.net/c?sv=2020&sig=abcDEF%2B123456", "abcDEF%2B123456"},
		{"https://x/?X-Amz-Signature=deadbeef0123&a=b", "deadbeef0123"},
		{"https://maps.x.com/api?key=AIzaSyabcdef0123456789abcdef0123456789", "AIzaSyabcdef0123456789"},
		{"https://user:p@ssw0rd@host/x", "ssw0rd"},
		// key shapes inside words and after separators
		{"xAKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
		{"_AKIAIOSFODNN7EXAMPLE_", "AKIAIOSFODNN7EXAMPLE"},
		{"AKIAIOSFODNN7EXAMPLEx", "AKIAIOSFODNN7EXAMPLE"},
		{"foo_ghp_0123456789abcdef0123456789abcdefABCD", "0123456789abcdef0123456789abcdef"},
		{"TOKEN_github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"},
		{"key_sk-abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz0123"},
		{"id:xoxb-123456789012-abcdefghijkl", "123456789012-abcdefghijkl"},
		{"AIzaSyA0123456789abcdefghijklmnopqrstuv", "0123456789abcdefghijklmnopqrstuv"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlAAA", "eyJzdWIiOiIxMjM0In0"},
		{"glpat-abcdefghij0123456789", "abcdefghij0123456789"},
		{"npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789"},
		{"sk_live_abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"},
		{"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "abcdefghijklmnopqrstuvwxyzABCDEFGH"},
		// key blocks
		{"-----BEGIN RSA PRIVATE KEY-----\r\nMIIEabc\r\n-----END RSA PRIVATE KEY-----\r\n", "MIIEabc"},
		{"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAAIPrivBits\nPrivate-MAC: abcdef\n", "AAAAIPrivBits"},
	}
	for _, c := range cases {
		got := String(c.in)
		assert.NotContains(t, got, c.secret, "%q -> %q", c.in, got)
		assert.Contains(t, got, Mask, "%q -> %q", c.in, got)
	}
	// Nothing secret, nothing changed.
	for _, plain := range []string{
		"ls -la", "x=1 y=2", "https://example.com/path?q=1&page=2", "go test ./...", "a basic idea",
		"task-abcdefghijklmnopqrstuvwxyz0123", "max_tokens=100", "token_count: 12", "error: file not found",
		"https://bob@github.com/x/y", "see https://host:8080/x?email=a@b.c", "deploy --no-auth --verbose",
	} {
		assert.Equal(t, plain, String(plain))
	}
}

// Secrets in argument shapes where the secret name is a value, not a key:
// name/value objects (HTTP headers in HAR and Postman, Kubernetes env) and
// command lines given as arrays.
func TestAttackArgShapes(t *testing.T) {
	for _, c := range []struct{ in, secret, keep string }{
		{`{"headers":[{"name":"Authorization","value":"abcdefghijklmnop"},{"name":"Accept","value":"text/html"}]}`, "abcdefghijklmnop", "text/html"},
		{`{"headers":[{"value":"abcdefghijklmnop","name":"X-Api-Key"}]}`, "abcdefghijklmnop", "X-Api-Key"},
		{`{"env":[{"name":"PASSWORD","value":"hunter2abc"}]}`, "hunter2abc", "PASSWORD"},
		{`{"params":[{"key":"access_token","value":{"v":"hunter2abc"}}]}`, "hunter2abc", "access_token"},
		{`{"args":["mysql","--password","hunter2abc","-h","db"]}`, "hunter2abc", `"db"`},
		{`{"argv":["curl","-H","X-Api-Key: abcdefghijklmnop"]}`, "abcdefghijklmnop", "curl"},
		{`{"headers":[["X-Api-Key","abcdefghijklmnop"],["Accept","text/html"]]}`, "abcdefghijklmnop", "text/html"},
		{`{"data":"{\"password\":\"hunter2abc\"}"}`, "hunter2abc", "data"},
		{`{"data":"{\"nested\":\"{\\\"password\\\":\\\"hunter2abc\\\"}\"}"}`, "hunter2abc", "nested"},
		{`{"pass word":"hunter2abc","Pass-Word":"hunter2abc"}`, "hunter2abc", "pass word"},
	} {
		out := Args(json.RawMessage(c.in), nil)
		require.True(t, json.Valid(out), "%s -> %s", c.in, out)
		assert.NotContains(t, string(out), c.secret, "%s -> %s", c.in, out)
		assert.Contains(t, string(out), c.keep, "the rest stays: %s -> %s", c.in, out)
	}
	// Values named "value" next to a name that says nothing stay.
	plain := `{"headers":[{"name":"Accept","value":"text/html"}],"args":["ls","-la"],"pair":["a","b"]}`
	assert.Equal(t, plain, string(Args(json.RawMessage(plain), nil)))
}

// Deep nesting and huge inputs fail safe, without a panic or a leak.
func TestAttackHugeAndDeep(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20000) + `{"password":"hunter2abc"}` + strings.Repeat(`}`, 20000)
	out := Args(json.RawMessage(deep), nil)
	assert.NotContains(t, string(out), "hunter2abc")
	deepStr := strings.Repeat(`[`, 20000) + `"password=hunter2abc"` + strings.Repeat(`]`, 20000)
	assert.NotContains(t, string(Args(json.RawMessage(deepStr), nil)), "hunter2abc")
	// A string that nests JSON in strings many times.
	s := `{"password":"hunter2abc"}`
	for range 10 {
		b, _ := json.Marshal(map[string]string{"d": s})
		s = string(b)
	}
	out = Args(json.RawMessage(s), nil)
	assert.NotContains(t, string(out), "hunter2abc")
	big := `{"cmd":"` + strings.Repeat("a=b ", 1<<18) + `password=hunter2abc"}`
	out = Args(json.RawMessage(big), nil)
	assert.NotContains(t, string(out), "hunter2abc")
}

// A tool that echoes a secret argument into its error message: the values
// Args masks are found again in the message.
func TestAttackEchoedSecretValues(t *testing.T) {
	args := json.RawMessage(`{"user":"alice","pin":739164,"creds":{"k":"k-9f8e7d6c5b4a"},"headers":[{"value":"v-0a1b2c3d","name":"X-Api-Key"}],"ok":"abc"}`)
	vals := SecretValues(args, []string{"pin"})
	assert.ElementsMatch(t, []string{"739164", "k-9f8e7d6c5b4a", "v-0a1b2c3d"}, vals)
	msg := "user alice: pin 739164 rejected, creds k-9f8e7d6c5b4a, header v-0a1b2c3d, ok abc"
	got := Scrub(msg, vals)
	assert.Equal(t, "user alice: pin [REDACTED] rejected, creds [REDACTED], header [REDACTED], ok abc", got)
	assert.Equal(t, "a b", Scrub("a b", []string{"a", "b"}), "values shorter than 4 bytes are not searched for")
	// Paths that do not compile: every value counts.
	assert.Contains(t, SecretValues(args, []string{"bad..path"}), "alice")
	assert.Nil(t, SecretValues(nil, nil))
	assert.NotPanics(t, func() { _ = SecretValues(json.RawMessage(`{"password":`), nil) })
}

// Secret paths written in other path languages (JSONPath wildcards and
// indexes) used to compile as literal keys and redact nothing: they are
// refused, so Args fails safe, and Compile says how to write them.
func TestAttackForeignPathSyntax(t *testing.T) {
	args := json.RawMessage(`{"items":[{"key":"hunter2abc"}],"m":{"a":{"k":"hunter2abc"}}}`)
	for _, p := range []string{"items[*].key", "items[0].key", "$.items[].key", "m.*.k", "m[a].k", "items[].key]"} {
		_, err := Compile([]string{p})
		assert.Error(t, err, p)
		assert.NotContains(t, string(Args(args, []string{p})), "hunter2abc", p)
	}
	for _, p := range []string{"items[].key", "m{}.k", "items.key", "a-b.c_d", "x[][]"} {
		_, err := Compile([]string{p})
		assert.NoError(t, err, p)
	}
}

// String, SecretValues and Scrub never panic, and String is stable: what it
// leaves is left the next time (a masked value is not masked again into
// something else).
func FuzzStringRule(f *testing.F) {
	f.Add(`token: abc --password x "password":"y" https://u:p@h/?sig=1 AKIAIOSFODNN7EXAMPLE`)
	f.Add(`{\"auth\":\"x\"} -----BEGIN PRIVATE KEY-----`)
	f.Add(`a=b: c:=d e=>"f`)
	f.Fuzz(func(t *testing.T, s string) {
		once := String(s)
		if twice := String(once); twice != once {
			t.Fatalf("String(%q) = %q, and again %q", s, once, twice)
		}
		_ = Scrub(s, SecretValues([]byte(s), nil))
	})
}

// Passwords given to a command on its command line, in the forms the
// common clients take them: each was kept in plain text in logs, the
// audit trail and events. What is not a password stays.
func TestAttackCommandLinePasswords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"curl -u admin:hunter2 https://x", "curl -u admin:" + Mask + " https://x"},
		{"curl -sS --user admin:hunter2 https://x", "curl -sS --user admin:" + Mask + " https://x"},
		{"curl --user=admin:hunter2 x", "curl --user=admin:" + Mask + " x"},
		{"curl -uadmin:hunter2 x", "curl -uadmin:" + Mask + " x"},
		{"curl -sSu admin:hunter2 x", "curl -sSu admin:" + Mask + " x"},
		{"curl -U 'proxy:hunter 2' x", "curl -U 'proxy:" + Mask + "' x"},
		{"curl --proxy-user proxy:hunter2 x", "curl --proxy-user proxy:" + Mask + " x"},
		{"mysql -uroot -phunter2 db", "mysql -uroot -p" + Mask + " db"},
		{"mysqldump -h db -u root -p'hunter 2' app", "mysqldump -h db -u root -p" + Mask + " app"},
		{"sshpass -p hunter2 ssh host", "sshpass -p " + Mask + " ssh host"},
		{"redis-cli -h cache -a hunter2 ping", "redis-cli -h cache -a " + Mask + " ping"},
		{"docker login -u me -p hunter2 registry", "docker login -u me -p " + Mask + " registry"},
		{"podman login --username me -p hunter2", "podman login --username me -p " + Mask},
		// Not passwords.
		{"curl -u admin https://x", "curl -u admin https://x"},
		{"docker run -u 1000:1000 img", "docker run -u 1000:1000 img"},
		{"mysql -p db", "mysql -p db"},
		{"mkdir -p out && ssh -p 22 host", "mkdir -p out && ssh -p 22 host"},
		{"git push -u origin main", "git push -u origin main"},
		{"docker run -p 8080:80 img", "docker run -p 8080:80 img"},
	} {
		assert.Equal(t, tc.want, String(tc.in), "String(%q)", tc.in)
	}
}

// The same passwords in a command line given as an argv array, the shape
// of exec-style tools and MCP servers' "args": each element alone says
// nothing ("-u", "admin:hunter2"), so each was kept in plain text. The
// array is judged as the command line it spells; what is not a password
// stays, and arrays that are not all strings are left to the other rules.
func TestAttackArgvPasswords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"argv":["curl","-u","admin:hunter2","https://x"]}`, `{"argv":["curl","-u","admin:` + Mask + `","https://x"]}`},
		{`{"argv":["/usr/bin/curl","-sSu","admin:hunter2"]}`, `{"argv":["/usr/bin/curl","-sSu","admin:` + Mask + `"]}`},
		{`{"argv":["curl","--user=admin:hunter2","x"]}`, `{"argv":["curl","--user=admin:` + Mask + `","x"]}`},
		{`{"argv":["mysql","-uroot","-phunter2","db"]}`, `{"argv":["mysql","-uroot","-p` + Mask + `","db"]}`},
		{`{"argv": [ "sshpass", "-p", "hunter2", "ssh", "host" ]}`, `{"argv": ["sshpass","-p","` + Mask + `","ssh","host"]}`},
		{`{"cmd":["redis-cli","-a","hunter2","ping"]}`, `{"cmd":["redis-cli","-a","` + Mask + `","ping"]}`},
		{`{"cmd":["docker","login","-u","me","-p","hunter2","r.io"]}`, `{"cmd":["docker","login","-u","me","-p","` + Mask + `","r.io"]}`},
		// Masked inside an element by another rule, and the array's own.
		{`{"a":["curl","-H","Authorization: Bearer abcdefghijkl","-u","me:hunter2"]}`, `{"a":["curl","-H","Authorization: Bearer ` + Mask + `","-u","me:` + Mask + `"]}`},
		// A rule that takes blanks with the secret: the words it took go.
		{`{"a":["curl","-H","Cookie:","sid=abc","-o","out"]}`, `{"a":["curl","-H","Cookie:","` + Mask + `","` + Mask + `","` + Mask + `"]}`},
		// Masked whole by its flag's name, and the array judged too.
		{`{"a":["mysql","--password","pw1","-ppw2"]}`, `{"a":["mysql","--password","` + Mask + `","-p` + Mask + `"]}`},
		// An element with blanks is a word of its own.
		{`{"a":["curl","-u","me:hunter2","-d","a b"]}`, `{"a":["curl","-u","me:` + Mask + `","-d","a b"]}`},
		// Not passwords.
		{`{"argv":["docker","run","-u","1000:1000","img"]}`, `{"argv":["docker","run","-u","1000:1000","img"]}`},
		{`{"argv":["curl","-u","admin","https://x"]}`, `{"argv":["curl","-u","admin","https://x"]}`},
		{`{"argv":["ssh","-p","22","host"]}`, `{"argv":["ssh","-p","22","host"]}`},
		{`{"argv":["curl",1,"-u","admin:pw"]}`, `{"argv":["curl",1,"-u","admin:pw"]}`},
	} {
		out := Args(json.RawMessage(tc.in), nil)
		require.True(t, json.Valid(out), "%s -> %s", tc.in, out)
		assert.JSONEq(t, tc.want, string(out), "Args(%s)", tc.in)
		if tc.in == tc.want {
			assert.Equal(t, tc.in, string(out), "kept byte for byte")
		}
	}
	// Masked where it sits, the rest of the document kept byte for byte.
	in := `{"x": 1, "argv": ["curl", "-u", "me:hunter2"], "y": "z"}`
	assert.Equal(t, `{"x": 1, "argv": ["curl","-u","me:`+Mask+`"], "y": "z"}`, string(Args(json.RawMessage(in), nil)))
}

// JSON written inside a string (a "data" or "body" field, a tool's
// result) is judged as a document of its own: a secret name whose value
// is an object or array, a key spelled with escapes, and an argv array all
// reached the record in plain text, because the string rule sees only
// name: "text" pairs.
func TestAttackJSONInsideString(t *testing.T) {
	for _, in := range []string{
		`{"data":"{\"password\": {\"v\":\"hunter2abc\"}}"}`,
		`{"data":"{\"password\": [\"hunter2abc\"]}"}`,
		`{"data":"{\"pass\\u0077ord\":\"hunter2abc\"}"}`,
		`{"data":"{\"argv\":[\"curl\",\"-u\",\"admin:hunter2abc\"]}"}`,
		`{"cmd":"[\"curl\",\"-u\",\"admin:hunter2abc\"]"}`,
		`{"data":" [{\"name\":\"Authorization\",\"value\":\"hunter2abc\"}]"}`,
	} {
		out := Args(json.RawMessage(in), nil)
		require.True(t, json.Valid(out), "%s -> %s", in, out)
		assert.NotContains(t, string(out), "hunter2abc", "%s -> %s", in, out)
		assert.Contains(t, string(out), Mask, "%s -> %s", in, out)
		if !strings.Contains(in, "curl") { // masked whole: Scrub finds it echoed
			assert.Contains(t, SecretValues(json.RawMessage(in), nil), "hunter2abc", in)
		}
	}
	// A string that holds JSON with nothing secret stays byte for byte.
	plain := `{"data":"{\"a\": [1, \"b\"]}","s":"[not json"}`
	assert.Equal(t, plain, string(Args(json.RawMessage(plain), nil)))
}

// Environment names written as JSON keys and values (an MCP server's
// "env", Kubernetes env, a header pair) are judged as String judges
// NAME=value: by LooksSecretEnv when upper case. {"env":{"NPM_PASS":"..."}}
// was kept in plain text while "NPM_PASS=..." was masked.
func TestAttackEnvNamesAsKeys(t *testing.T) {
	for _, in := range []string{
		`{"env":{"NPM_PASS":"hunter2abc"}}`,
		`{"env":{"DB_PASS":"hunter2abc","X":"1"}}`,
		`{"env":[{"name":"DB_PASS","value":"hunter2abc"}]}`,
		`{"env":[{"value":"hunter2abc","name":"SIGNING_CERT"}]}`,
		`{"h":["DB_PASS","hunter2abc"]}`,
	} {
		out := Args(json.RawMessage(in), nil)
		assert.NotContains(t, string(out), "hunter2abc", "%s -> %s", in, out)
		assert.Equal(t, "DB_PASS=[REDACTED]", String("DB_PASS=hunter2abc"), "the string rule agrees")
	}
	// Lower-case words stay judged by LooksSecret alone.
	plain := `{"sig":"ok","keys":["a","b"],"env":{"PATH":"/bin","HOME":"/root"}}`
	assert.Equal(t, plain, string(Args(json.RawMessage(plain), nil)))
}

// More clients' password flags, an argv word that holds a blank, a quote
// or a shell separator, and YAML values written below their names: each
// was kept in plain text.
func TestAttackMoreCommandLinePasswords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"redis-cli -h cache --pass hunter2 ping", "redis-cli -h cache --pass " + Mask + " ping"},
		{"openssl pkcs12 -in a.p12 -passin pass:hunter2 -nokeys", "openssl pkcs12 -in a.p12 -passin pass:" + Mask + " -nokeys"},
		{"openssl enc -aes256 -pass pass:'hunter 2'", "openssl enc -aes256 -pass pass:" + Mask},
		{"keytool -list -keystore k.jks -storepass hunter2", "keytool -list -keystore k.jks -storepass " + Mask},
		{"jarsigner -keystore k -storepass hunter2 -keypass hunter3 a.jar al", "jarsigner -keystore k -storepass " + Mask + " -keypass " + Mask + " a.jar al"},
		{"ldapsearch -x -D cn=admin -w hunter2 -b dc=x", "ldapsearch -x -D cn=admin -w " + Mask + " -b dc=x"},
		{"sqlcmd -S db -U sa -P hunter2 -Q 'select 1'", "sqlcmd -S db -U sa -P " + Mask + " -Q 'select 1'"},
		{"smbclient //h/share -U bob%hunter2", "smbclient //h/share -U bob%" + Mask},
		{"zip -P hunter2 out.zip a.txt", "zip -P " + Mask + " out.zip a.txt"},
		{"7z a -phunter2 out.7z dir", "7z a -p" + Mask + " out.7z dir"},
		// YAML: below the name, plain or as a block scalar.
		{"db:\n  password:\n    hunter2\n  user: bob", "db:\n  password:\n    " + Mask + "\n  user: bob"},
		{"password: |\n  hunter2\n  more\nuser: bob", "password: |\n  " + Mask + "\nuser: bob"},
		{"token: >-\r\n  hunter2\r\nx: 1", "token: >-\r\n  " + Mask + "\r\nx: 1"},
		// JSON as a whole message: judged as arguments.
		{`{"password": ["hunter2"], "user": "bob"}`, `{"password": "` + Mask + `", "user": "bob"}`},
		// Not passwords.
		{"redis-cli --askpass ping", "redis-cli --askpass ping"},
		{"openssl enc -pass env:PW", "openssl enc -pass env:PW"},
		{"ldapsearch -W -x", "ldapsearch -W -x"},
		{"gzip -P x", "gzip -P x"},
		{"password:\nuser: bob", "password:\nuser: bob"},
		{"error: password:\n", "error: password:\n"},
	} {
		assert.Equal(t, tc.want, String(tc.in), "String(%q)", tc.in)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"argv":["curl","-u","admin:hunter 2abc","x"]}`, `{"argv":["curl","-u","admin:` + Mask + `","x"]}`},
		{`{"argv":["mysql","-phunter'2abc","db"]}`, `{"argv":["mysql","-p` + Mask + `","db"]}`},
		{`{"argv":["curl","|","-u","admin:hunter2abc"]}`, `{"argv":["curl","|","-u","admin:` + Mask + `"]}`},
		{`{"argv":["sshpass","-p","a;b&c|hunter2abc","ssh","h"]}`, `{"argv":["sshpass","-p","` + Mask + `","ssh","h"]}`},
		{`{"argv":["redis-cli","--pass","hunter2abc"]}`, `{"argv":["redis-cli","--pass","` + Mask + `"]}`},
		{`{"argv":["openssl","enc","-pass","pass:hunter2abc"]}`, `{"argv":["openssl","enc","-pass","pass:` + Mask + `"]}`},
		// Words with blanks that hold no password stay as they are.
		{`{"argv":["curl","-u","me:hunter2abc","-d","a b; c"]}`, `{"argv":["curl","-u","me:` + Mask + `","-d","a b; c"]}`},
	} {
		out := Args(json.RawMessage(tc.in), nil)
		require.True(t, json.Valid(out), "%s -> %s", tc.in, out)
		assert.JSONEq(t, tc.want, string(out), "Args(%s)", tc.in)
	}
}

// Passwords in XML elements, .netrc entries and Oracle's
// user/password@database: each was kept in plain text in an error
// message or an argument.
func TestAttackXMLNetrcOracle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<server><id>r</id><username>u</username><password>p w</password></server>",
			"<server><id>r</id><username>u</username><password>" + Mask + "</password></server>"},
		{`<ns:Token kind="x">hunter2</ns:Token>`, `<ns:Token kind="x">` + Mask + `</ns:Token>`},
		{"machine api.x.com\n  login bob\n  password hunter2\n", "machine api.x.com\n  login bob\n  password " + Mask + "\n"},
		{"default login bob password hunter2", "default login bob password " + Mask},
		{"sqlplus -S scott/hunter2@orcl @run.sql", "sqlplus -S scott/" + Mask + "@orcl @run.sql"},
		{"rman target sys/hunter2@db", "rman target sys/" + Mask + "@db"},
		{"jdbc:oracle:thin:scott/hunter2@h:1521/db", "jdbc:oracle:thin:scott/" + Mask + "@h:1521/db"},
		// Not passwords.
		{"<author>ada</author><token></token>", "<author>ada</author><token></token>"},
		{"<token>x</tokens>", "<token>x</tokens>"},
		{"the machine has no password set", "the machine has no password set"},
		{"sqlplus / as sysdba", "sqlplus / as sysdba"},
		{"sqlplus /nolog @dir/x.sql", "sqlplus /nolog @dir/x.sql"},
		{"jdbc:oracle:thin:@h:1521/db", "jdbc:oracle:thin:@h:1521/db"},
	} {
		assert.Equal(t, tc.want, String(tc.in), "String(%q)", tc.in)
	}
}

// A secret masked inside a string (curl's -u, a URL's password, a token
// in a header) is a secret value too: where the tool echoes it alone in
// its error ("401 for PW"), Scrub masks it. SecretValues returned only
// values masked whole, so the echo was kept in plain text.
func TestAttackEchoOfSecretInsideString(t *testing.T) {
	for _, tc := range []struct{ args, secret string }{
		{`{"cmd":"curl -u me:hunter2abc https://x"}`, "hunter2abc"},
		{`{"url":"postgres://u:hunter2abc@db/app"}`, "hunter2abc"},
		{`{"h":"Authorization: Bearer tok-hunter2abc"}`, "tok-hunter2abc"},
		{`{"argv":["curl","-u","me:hunter 2abc"]}`, "hunter 2abc"},
		{`{"data":"{\"password\":\"hunter2abc\"}"}`, "hunter2abc"},
		{`{"a":"x token=hunter2abc y password=p2p2p2p2 z"}`, "p2p2p2p2"},
	} {
		vals := SecretValues(json.RawMessage(tc.args), nil)
		assert.Contains(t, vals, tc.secret, tc.args)
		assert.Equal(t, "server said: [REDACTED] is wrong", Scrub("server said: "+tc.secret+" is wrong", vals), tc.args)
	}
	assert.Empty(t, SecretValues(json.RawMessage(`{"cmd":"ls -la","u":"https://x/y"}`), nil))
}

// Passwords in SQL: a quoted literal after PASSWORD, a user's IDENTIFIED
// BY. A psql -c or mysql -e argument kept them in plain text.
func TestAttackSQLPasswords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ALTER USER bob WITH PASSWORD 'hun''ter2';", "ALTER USER bob WITH PASSWORD " + Mask + ";"},
		{"CREATE ROLE app LOGIN ENCRYPTED PASSWORD 'hunter2'", "CREATE ROLE app LOGIN ENCRYPTED PASSWORD " + Mask},
		{"create user 'a'@'%' identified by 'hunter2';", "create user 'a'@'%' identified by " + Mask + ";"},
		{"ALTER USER scott IDENTIFIED BY tiger;", "ALTER USER scott IDENTIFIED BY " + Mask + ";"},
		{"CREATE USER x IDENTIFIED WITH mysql_native_password BY 'hunter2'", "CREATE USER x IDENTIFIED WITH mysql_native_password BY " + Mask},
		// Not passwords.
		{"password is required", "password is required"},
		{"identified by the team", "identified by the team"},
	} {
		assert.Equal(t, tc.want, String(tc.in), "String(%q)", tc.in)
	}
	out := Args(json.RawMessage(`{"argv":["psql","-c","ALTER USER bob PASSWORD 'hunter2abc'"]}`), nil)
	assert.NotContains(t, string(out), "hunter2abc")
}

// Slack's app-level (xapp-) and refresh (xoxe-) tokens were not a known
// key shape.
func TestAttackSlackAppTokens(t *testing.T) {
	for _, s := range []string{
		"SLACK_APP=xapp-1-A0123456789-0123456789012-abcdef0123456789",
		"refresh xoxe-1-My0xLTEtMjM0NTY3ODkwMTIzNC0",
	} {
		got := String(s)
		assert.Contains(t, got, Mask, s)
		assert.NotContains(t, got, "0123456789012", s)
		assert.NotContains(t, got, "My0xLTEtMjM0NTY3ODkwMTIzNC0", s)
	}
	assert.Equal(t, "xapp-store release", String("xapp-store release"))
}

// A secret name whose value is an object or array inside a text (JSON
// after a prefix in an error message, escaped JSON, password=[pw]): the
// rule left the value to be "found on its own", and nothing inside named
// it. It is masked whole, as Args masks a secret key's value.
func TestAttackBracketedValueInText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`bad request: {"password": ["hunter2"], "user": "bob"}`, `bad request: {"password": ` + Mask + `, "user": "bob"}`},
		{`body {"auth": {"user": "bob", "pw": "hunter2"}} rejected`, `body {"auth": ` + Mask + `} rejected`},
		{`{\"password\":[\"hunter2\"],\"u\":1}`, `{\"password\":` + Mask + `,\"u\":1}`},
		{"password=[hunter2] user=x", "password=" + Mask + " user=x"},
		{"password={hunter2}", "password=" + Mask},
		// Not closed within the word: left alone, and the text stays
		// linear in its length however many there are.
		{"password=[unclosed and more", "password=[unclosed and more"},
		{strings.Repeat("password=[", 3), strings.Repeat("password=[", 3)},
	} {
		assert.Equal(t, tc.want, String(tc.in), "String(%q)", tc.in)
	}
}

// Azure API Management's subscription key header was not a secret name.
func TestAttackSubscriptionKey(t *testing.T) {
	for _, name := range []string{"Ocp-Apim-Subscription-Key", "subscription_key", "subscriptionKey"} {
		assert.True(t, LooksSecret(name), name)
	}
	for _, name := range []string{"subscription", "subscription_id", "subscriptions"} {
		assert.False(t, LooksSecret(name), name)
	}
	out := Args(json.RawMessage(`{"headers":{"Ocp-Apim-Subscription-Key":"hunter2abc"}}`), nil)
	assert.NotContains(t, string(out), "hunter2abc")
	assert.Equal(t, "-H Ocp-Apim-Subscription-Key:"+Mask, String("-H Ocp-Apim-Subscription-Key:hunter2abc"))
}
