package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// pgpassLines are lines of a PostgreSQL password file (~/.pgpass:
// hostname:port:database:username:password, "*" for any, "\:" and "\\"
// escaped), as cat or a file-reading tool prints them. No name says
// "password": the fifth field is one by its place. "Zq7" marks it.
var pgpassLines = []struct{ name, text string }{
	{"one line", "db.example.com:5432:app:alice:Zq7hunter2-secret\n"},
	{"wildcards", "*:*:*:alice:Zq7hunter2-secret\n"},
	{"no line end", "localhost:5432:app:alice:Zq7hunter2-secret"},
	{"CRLF", "localhost:5432:app:alice:Zq7hunter2-secret\r\n"},
	{"escaped colons", "fe80\\:\\:1:5432:app:alice:Zq7hunter2\\:secret\n"},
	{"password with a colon and blanks", "localhost:5432:app:alice:Zq7a\\:b Zq7c\n"},
	{"socket directory", "/var/run/postgresql:5432:app:alice:Zq7hunter2-secret\n"},
	{"a file of lines", "# prod\ndb1.example.com:5432:*:alice:Zq7one\n\ndb2.example.com:6432:app:bob:Zq7two\n"},
	{"numbered by a reading tool", "     1\tdb.example.com:5432:app:alice:Zq7hunter2-secret\n"},
}

// The whole-text rule masks each password, and keeps the rest of its line.
func TestAttackS21Pgpass(t *testing.T) {
	for _, c := range pgpassLines {
		got := String(c.text)
		assert.NotContains(t, got, "Zq7", "%s: %q", c.name, got)
		assert.Contains(t, got, ":alice:", "%s: %q", c.name, got)
	}
	assert.Equal(t, "db.example.com:5432:app:alice:"+Mask+"\n", String("db.example.com:5432:app:alice:hunter2\n"))
}

// The streaming rule masks them at every chunk boundary.
func TestAttackS21PgpassStream(t *testing.T) {
	filler := strings.Repeat("listing the files of the project\n", 4)
	for _, c := range pgpassLines {
		text := filler + c.text + "\ndone\n"
		for i := len(filler) - 1; i <= len(filler)+len(c.text); i++ {
			if got := streamed(Stream{Mask: String, Hold: 8, Lines: true}, text[:i], text[i:]); strings.Contains(got, "Zq7") {
				t.Errorf("%s, split at %d: shown %q", c.name, i-len(filler), got)
				break
			}
		}
	}
}

// Lines with colons that are not a password file's stay as they are:
// compilers' and linters' positions, times, IPv6 and MAC addresses,
// certificate fingerprints, /etc/passwd and /etc/group, URLs with ports,
// YAML. (Those from man pages and docs were masked by a first version of
// the rule.)
func TestS21PgpassNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"MACAddress=11:22:aa:bb:cc:33\n",
		"   15:31:f8:fb:13\n",
		"                    85:69:0c:65:43:98:e2:8a:a7:7d:fb:a8:95:19:67:\n",
		"keyid:06:B5:A4:AC:A7:AA:75:44:EA:15:9C:4F:DF:05:83:4F:6A:1E:FE:0B\n",
		"2001:200:0:8002:203:47ff:fea5:3085\n",
		"2001:4860:4860:0:8888\n",
		"vu-rawhide-0:*:20119552:65534:vu-rawhide-0:/:/usr/sbin/nologin\n",
		"kex.c:*:1000,*:kex_exchange_identification():*,packet.c:*\n",
		"TZ=\"NZST-12:00:00NZDT-13:00:00,M10.1.0,M3.3.0\"\n",
		"\"73:59:75:5C:6D...\".\n",
		"mouse:*:name:*Trackball*:*\n",
		"./main.go:12:3: undefined: foo\n",
		"main.go:12:3: error: expected ';' at end\n",
		"src/app.ts:10:5 - error TS2304: Cannot find name\n",
		"12:30:45.123 started\n",
		"2026-11-28T12:30:45Z ready\n",
		"fe80::1ff:fe23:4567:890a\n",
		"00:1a:2b:3c:4d:5e\n",
		"root:x:0:0:root:/root:/bin/bash\n",
		"wheel:x:10:alice,bob\n",
		"http://db.example.com:5432/app\n",
		"image: nginx:1.25\n",
		"ratio 1:2:3:4:5 of the parts\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}
