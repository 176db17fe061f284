package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// passNames are secrets under a name whose only secret word is pass: a
// database's, a mailer's or Redis's password in an env file, YAML, JSON,
// a muttrc or a flag. "Zq7" marks the secret.
var passNames = []string{
	"dbpass=Zq7hunter2\n",
	"DB_PASS: Zq7hunter2\n",
	"smtp_pass: Zq7hunter2\n",
	"config: {\"mysql_pass\": \"Zq7hunter2\"}\n",
	"PGPASS=Zq7hunter2\n",
	"dbPass=Zq7hunter2\n",
	"db-pass=Zq7hunter2\n",
	"user: bob\npass: Zq7hunter2\n",
	"set smtp_pass = \"Zq7hunter2\"\n",
	"set imap_pass=\"Zq7hunter2\"\n",
	"migrate --db-pass Zq7hunter2 up\n",
	"user_pass = \"Zq7hunter2\"\n",
	"rootpass=Zq7hunter2\n",
	"REDIS_PASS2=Zq7hunter2\n",
}

// A name ending in the word pass holds a password, in text and as a JSON
// key.
func TestAttackS22PassNames(t *testing.T) {
	for _, text := range passNames {
		assert.NotContains(t, String(text), "Zq7", "%q", text)
	}
	for _, key := range []string{"dbpass", "smtp_pass", "mysql_pass", "dbPass", "PGPASS", "requirepass", "masterauth"} {
		args := json.RawMessage(`{"` + key + `": "Zq7hunter2"}`)
		assert.NotContains(t, string(Args(args, nil)), "Zq7", key)
		assert.True(t, LooksSecret(key), key)
	}
	// pass alone is a word of prose, but a key where a key is written.
	assert.False(t, LooksSecret("pass"))
	for _, text := range []string{
		"{\"user\": \"bob\", \"pass\": \"Zq7hunter2\"}",
		"request: {\"user\":\"bob\",\"pass\":\"Zq7hunter2\"}\n",
		"accounts:\n  - user: bob\n    pass: Zq7hunter2\n",
		"[smtp]\npass = Zq7hunter2\n",
	} {
		assert.NotContains(t, String(text), "Zq7", "%q", text)
	}
}

// Words that end in pass but name no password, a pass that is a
// boolean, and the verdict of a test run stay readable.
func TestS22PassNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"bypass=yes\n",
		"compass=north\n",
		"passthrough=1\n",
		"pass_rate: 0.95\n",
		"pass_count=12\n",
		"ffmpeg -i in.wav -af lowpass=f=3000,highpass=f=200 out.wav\n",
		"pass: true\n",
		"smtp_pass: false\n",
		"{\"name\": \"t1\", \"pass\": true}\n",
		"--- PASS: TestParse (0.00s)\n",
		"=== RUN   TestParse\n--- PASS: TestParse (0.01s)\nPASS\nok  \texample.com/x\t0.012s\n",
		"PASS: t/basic.sh\n",
		"# PASS:  12\n",
		"surpass: 3\nencompass: all\n",
		"It is read in one pass: a search of the text per value.\n",
		"the tests pass: see the log\n",
		"const pass = new PassThrough();\n",
		"for (pass = 0; pass < passes; pass++) {\n",
		"openssl enc -pass env:PW\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
	for _, name := range []string{"bypass", "compass", "passthrough", "pass_rate", "overpass", "lowpass", "PASS_COUNT"} {
		assert.False(t, LooksSecret(name), name)
	}
}

// directiveLines are configuration lines of a name, blanks and the
// secret: redis.conf, msmtprc, keepalived.conf, mosquitto.conf, and the
// same inside a JSON string and after cat -n's line number.
var directiveLines = []string{
	"bind 127.0.0.1\nrequirepass Zq7hunter2\nport 6379\n",
	"masterauth Zq7s3cr3t\n",
	"requirepass \"Zq7foo Zq7bar\"\n",
	"account default\nhost smtp.example.com\nuser joe\npassword Zq7s3cr3t\n",
	"passwd Zq7s3cr3t\n",
	"secret Zq7s3cr3t\n",
	"token Zq7s3cr3t\n",
	"api_key Zq7s3cr3t\n",
	"    authentication {\n        auth_type PASS\n        auth_pass Zq71234\n    }\n",
	"remote_password Zq7s3cr3t\n",
	"     3\trequirepass Zq7hunter2\n",
	"HashedControlPassword 16:Zq7ABCDEF0123\n",
}

// A line that is a secret name and one value is masked.
func TestAttackS22DirectiveLines(t *testing.T) {
	for _, text := range directiveLines {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
	}
	args := json.RawMessage(`{"path": "/etc/redis/redis.conf", "content": "port 6379\nrequirepass Zq7hunter2\n"}`)
	assert.NotContains(t, string(Args(args, nil)), "Zq7")
	assert.Equal(t, "requirepass "+Mask+"\n", String("requirepass hunter2\n"))
}

// Settings about passwords, directives whose value is no secret, prose
// and comments stay readable.
func TestS22DirectiveNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"PasswordAuthentication no\n",
		"PermitEmptyPasswords no\n",
		"ChallengeResponseAuthentication no\n",
		"AuthType Basic\nAuthName \"Restricted\"\nAuthUserFile /etc/apache2/.htpasswd\n",
		"HostKey /etc/ssh/ssh_host_ed25519_key\n",
		"password_file /etc/mosquitto/passwd\n",
		"the password is the same as before\n",
		"The token expired yesterday, request a new one.\n",
		"# requirepass foobared\n",
		"auth required pam_unix.so\n",
		"SMTPAuth yes\n",
		"token_count 12\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}

// Prose with the .netrc words keeps its words.
func TestS22NetrcProseKept(t *testing.T) {
	for _, kept := range []string{
		"By default password authentication is disabled.\n",
		"the default password is admin\n",
		"The machine login password is stored in the vault.\n",
		"If no machine matches, the default login and password apply.\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
	// A "default" entry written where .netrc text is: at a line's start, after
	// cat -n's number, inside quotes, after an escaped line break, after
	// another entry.
	for _, text := range []string{
		"default login anonymous password Zq7me\n",
		"     1\tdefault login a password Zq7b\n",
		"echo 'default login a password Zq7b' >> ~/.netrc\n",
		"{\"text\": \"machine h login a password Zq7x\\ndefault login b password Zq7y\"}\n",
		"machine h login a password Zq7x default login b password Zq7y\n",
		"# default login a password Zq7b\n",
	} {
		assert.NotContains(t, String(text), "Zq7", "%q", text)
	}
}

// Each new rule masks the same streamed, whatever the cut.
func TestAttackS22Streamed(t *testing.T) {
	texts := append(append([]string{}, passNames...), directiveLines...)
	texts = append(texts,
		"DB_PASS=$'Zq7hun ter\\'Zq72'\n", "PASSWORD=Zq7hun\\ Zq7ter2\n",
		"127.0.0.1:6379> AUTH Zq7hunter2\n", "CONFIG SET requirepass Zq7hunter2\n",
		"remote.origin.url=https://Zq7456789abcdef0123456789abcdef01234567@github.com/o/r.git\n")
	for _, text := range texts {
		full := strings.Repeat("listing the files of the project, nothing secret here\n", 3) + text + "done\n"
		// String needs Lines: it reads a name and its value as one line
		// (see Stream.Lines).
		for _, s := range []Stream{{Mask: String, Hold: 8, Lines: true}, liveStream} {
			for i := 1; i < len(full); i++ {
				got := streamed(s, full[:i], full[i:])
				if !assert.NotContains(t, got, "Zq7", "%q hold %d, cut at %d", text, s.Hold, i) {
					break
				}
			}
		}
	}
}

// An image pull secret as kubectl prints it: the registry's credentials
// are in base64-encoded JSON under .dockerconfigjson (or the older
// .dockercfg), and the same text echoed to base64 -d has no name at all.
func TestAttackS22DockerConfigJSON(t *testing.T) {
	compact := "eyJhdXRocyI6eyJyIjp7ImF1dGgiOiJacTcifX19"                                        // {"auths":{"r":{"auth":"Zq7"}}}
	tabbed := "ewoJImF1dGhzIjogewoJCSJyLmV4YW1wbGUuY29tIjogewoJCQkiYXV0aCI6ICJ4IgoJCX0KCX0KfQ==" // docker's own config.json
	old := "eyJyLmV4YW1wbGUuY29tIjp7ImF1dGgiOiJacTciLCJlbWFpbCI6ImFAYiJ9fQ=="                    // .dockercfg
	for _, c := range []struct{ text, secret string }{
		{"apiVersion: v1\ndata:\n  .dockerconfigjson: " + compact + "\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\n", compact},
		{"data:\n  .dockercfg: " + old + "\n", old},
		{`{"data":{".dockerconfigjson":"` + compact + `"}}`, compact},
		{"echo " + compact + " | base64 -d\n", compact},
		{"echo " + tabbed + " | base64 -d\n", tabbed[:40]},
	} {
		got := String(c.text)
		assert.NotContains(t, got, c.secret, "%q", c.text)
	}
	assert.Equal(t, "type: kubernetes.io/dockerconfigjson\n", String("type: kubernetes.io/dockerconfigjson\n"))
}

// A shell's own quoting of a value: bash's set and declare -p write a
// value with a quote or a control character as $'...', printf %q and
// xtrace escape a blank with a backslash.
func TestAttackS22ShellQuotedValues(t *testing.T) {
	for _, text := range []string{
		"DB_PASS=$'Zq7hun ter\\'Zq72'\n",
		"declare -x API_TOKEN=$'Zq7a\\nZq7b'\n",
		"PASSWORD=Zq7hun\\ Zq7ter2\n",
		"export SMTP_PASSWORD=Zq7a\\ b\\ Zq7c other=1\n",
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
	}
	assert.Equal(t, "PASSWORD=$'"+Mask+"' HOME=/root\n", String("PASSWORD=$'a\\'b' HOME=/root\n"))
	assert.Equal(t, "PASSWORD="+Mask+" HOME=/root\n", String("PASSWORD=a\\ b HOME=/root\n"))
}

// Redis's own commands that set or send its password: CONFIG SET
// requirepass/masterauth, and AUTH (with a user or not) typed at
// redis-cli's prompt or sent as a line.
func TestAttackS22RedisCommands(t *testing.T) {
	for _, text := range []string{
		"CONFIG SET requirepass Zq7hunter2\n",
		"redis-cli -h db config set masterauth \"Zq7s3 cr3t\"\n",
		"127.0.0.1:6379> AUTH Zq7hunter2\nOK\n",
		"127.0.0.1:6379> auth default Zq7hunter2\n",
		"AUTH Zq7hunter2\n",
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
	}
	for _, kept := range []string{
		"CONFIG SET maxmemory 100mb\n",
		"auth required pam_unix.so\n",
		"AUTH failed: WRONGPASS invalid username-password pair\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}

// A token written as a URL's user (GitHub's classic OAuth token with
// x-oauth-basic or no password, a CI's token in a remote URL): the rule
// for URLs masked a password only.
func TestAttackS22TokenAsURLUser(t *testing.T) {
	for _, text := range []string{
		"git clone https://Zq7456789abcdef0123456789abcdef01234567:x-oauth-basic@github.com/o/r.git\n",
		"remote.origin.url=https://Zq7456789abcdef0123456789abcdef01234567@github.com/o/r.git\n",
		"pip install git+https://Zq7aBcDeFgHiJkLmNoPqRsTuVwXyZ012345@git.example.com/pkg.git\n",
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
		assert.Contains(t, got, "@g", "%q", text)
	}
	for _, kept := range []string{
		"https://git@github.com/o/r\n",
		"https://x-access-token:" + Mask + "@github.com/o/r\n",
		"ssh://deploy-user-for-production@host/repo\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}

// More clients' password arguments: az, oc and cf login's -p,
// ssh-keygen's new and old passphrase (-N, -P), and htpasswd's batch mode
// (-b), whose password is the command's last word.
func TestAttackS22MoreClientPasswords(t *testing.T) {
	for _, text := range []string{
		"az login -u bob@example.com -p Zq7hunter2\n",
		"az login --service-principal -u app-id -p Zq7hunter2 --tenant t\n",
		"oc login https://api.example.com:6443 -u dev -p Zq7hunter2\n",
		"cf login -a api.example.com -u bob -p 'Zq7hunter 2'\n",
		"ssh-keygen -t ed25519 -N Zq7hunter2 -f key\n",
		"ssh-keygen -p -P Zq7old -N Zq7new -f key\n",
		"htpasswd -b .htpasswd bob Zq7hunter2\n",
		"htpasswd -nbB bob Zq7hunter2 && echo done\n",
		"htpasswd -c -b -B /etc/nginx/.htpasswd bob 'Zq7hunter 2'\n",
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
	}
	for _, kept := range []string{
		"htpasswd -c .htpasswd bob\n",
		"az login --use-device-code\n",
		"ssh-keygen -l -f key.pub\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
	assert.Equal(t, "htpasswd -b .htpasswd bob "+Mask+"\n", String("htpasswd -b .htpasswd bob hunter2\n"))
}

// A Dockerfile's ENV in its older form, name and value apart: the value
// is the rest of the line.
func TestAttackS22DockerfileEnv(t *testing.T) {
	for _, text := range []string{
		"FROM alpine\nENV DB_PASS Zq7hunter2\nRUN make\n",
		"ENV API_TOKEN Zq7abc def\n",
		"ENV\tMYSQL_ROOT_PASSWORD\t\"Zq7a b\"\n",
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
		assert.Contains(t, got, "ENV", "%q", text)
	}
	for _, kept := range []string{
		"ENV PATH /usr/local/bin:$PATH\n",
		"ENV GPG_KEY A035C8C19219BA821ECEA86B64E628F8D684696D\n",
		"ENV PYTHON_VERSION 3.12.1\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}
