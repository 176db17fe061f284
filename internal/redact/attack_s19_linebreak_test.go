package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// lineBreakSecrets are secrets whose value comes on a line after its name:
// a YAML block scalar with a blank line or a comment in it, and a shell
// command continued with a backslash (or PowerShell's backtick) between a
// flag the rule knows and its value. "Zq7" marks the secret.
var lineBreakSecrets = []struct{ name, text string }{
	{"block scalar with a blank line", "password: |\n  Zq7first-paragraph\n\n  Zq7second-paragraph\nuser: bob\n"},
	{"folded scalar with blank lines", "db:\n  token: >-\n    Zq7first\n\n\n    Zq7second\n  user: bob\n"},
	{"block scalar with a line of blanks", "password: |\n  Zq7first\n  \n  Zq7second\n \n  Zq7third\n"},
	{"block scalar with a comment", "password: |  # the deploy key\n  Zq7hunter2\n"},
	{"flag continued", "mycmd --password \\\n  Zq7hunter2 --verbose\n"},
	{"flag continued twice", "mycmd --token \\\n  \\\n  Zq7hunter2\n"},
	{"flag continued, CRLF", "mycmd --secret \\\r\nZq7hunter2\r\n"},
	{"flag= continued", "mycmd --password=\\\nZq7hunter2\n"},
	{"env= continued", "export DB_PASSWORD=\\\nZq7hunter2\n"},
	{"powershell backtick", "Connect-Db -Password `\n  Zq7hunter2\n"},
	{"sshpass -p continued", "sshpass -p \\\n  Zq7hunter2 ssh host\n"},
	{"sshpass continued before -p", "sshpass \\\n  -p Zq7hunter2 \\\n  ssh host\n"},
	{"redis-cli -a continued", "redis-cli -h db \\\n  -a \\\n  Zq7hunter2\n"},
	{"docker login continued", "docker login \\\n  -u bob \\\n  -p Zq7hunter2 registry.example.com\n"},
	{"curl -u continued", "curl -u \\\n  bob:Zq7hunter2 https://x.example.com\n"},
	{"curl continued before -u", "curl -sS \\\n  -u bob:Zq7hunter2 https://x.example.com\n"},
	{"mysql continued", "mysql -h db \\\n  -u bob \\\n  -pZq7hunter2\n"},
	{"ldapsearch -w continued", "ldapsearch -x -w \\\n  Zq7hunter2\n"},
	{"openssl -pass continued", "openssl enc -aes256 -pass \\\n  pass:Zq7hunter2\n"},
	{"keytool -storepass continued", "keytool -list -storepass \\\n  Zq7hunter2\n"},
	{"zip -P continued", "zip -P \\\n  Zq7hunter2 a.zip f\n"},
	{"sqlcmd -P continued", "sqlcmd -S db -P \\\n  Zq7hunter2\n"},
}

// The whole-text rule masks each of them.
func TestAttackS19ValueAfterALineBreak(t *testing.T) {
	for _, c := range lineBreakSecrets {
		got := String(c.text)
		assert.NotContains(t, got, "Zq7", "%s: %q", c.name, got)
	}
}

// The streaming rule masks each of them at every chunk boundary, with a
// hold longer than each (as the dashboard's 1 KiB) and with one so short
// that a cut is tried on every line, and far from its name (3000 blanks
// after a continuation, or between a block's paragraphs).
func TestAttackS19StreamValueAfterALineBreak(t *testing.T) {
	line := "compiling a package of the project, nothing secret here\n"
	cases := append([]struct{ name, text string }{}, lineBreakSecrets...)
	cases = append(cases,
		struct{ name, text string }{"flag continued, value far", "mycmd --password \\\n" + strings.Repeat(" ", 3000) + "Zq7hunter2\n"},
		struct{ name, text string }{"block scalar, paragraph far", "password: |\n  Zq7first\n" + strings.Repeat("\n", 3000) + "  Zq7second\n"})
	for _, c := range cases {
		for _, s := range []Stream{{Mask: String, Hold: 128, Lines: true}, {Mask: String, Hold: 8, Lines: true}} {
			filler := strings.Repeat(line, 1+2*s.Hold/len(line))
			text := filler + c.text + "done\n"
			for i := len(filler) - 1; i <= len(filler)+len(c.text); i++ {
				if k := i - len(filler); k > 80 && len(c.text)-k > 80 && k%101 != 0 {
					continue // within a long run of blanks: every byte is alike
				}
				got := streamed(s, text[:i], text[i:])
				if k := strings.Index(got, "Zq7"); k >= 0 {
					t.Errorf("%s, hold %d, split at %d: shown %q", c.name, s.Hold, i-len(filler), got[max(0, k-40):min(len(got), k+20)])
					break
				}
			}
		}
	}
}

// Text that only looks like those stays readable: a backslash ending a
// line after a flag that names nothing secret, a block under a name that
// is not secret, a key whose value ended before a blank line and a
// shallower line.
func TestLineBreakNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"mycmd --verbose \\\n  --output out.txt\n",
		"mycmd --password \\\n  --verbose\n",
		"description: |\n  first\n\n  second\n",
		"password:\nuser: bob\n\n  indented: text\n",
		"path: C:\\\nnext line\n",
		"sshpass -f file \\\n  ssh host\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}
