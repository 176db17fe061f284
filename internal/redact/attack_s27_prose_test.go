package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A secret written in a sentence: a secret's name, "is" (or "was", ":"
// or "="), and a value that looks like a credential. Before the fix the
// name had to be one word glued to ":" or "=", or a line of its own
// ("password hunter2"), so an agent's or a tool's prose kept the value.
func TestAttackS27SecretInProse(t *testing.T) {
	for in, want := range map[string]string{
		"password is hunter2xyz":                          "password is " + Mask,
		"The password is hunter2xyz.":                     "The password is " + Mask + ".",
		"my password was S3cr3t!x, change it":             "my password was " + Mask + ", change it",
		"the new password is: Zq7-hunter2 (do not share)": "the new password is: " + Mask + " (do not share)",
		"the token is abcDEF123456xyz":                    "the token is " + Mask,
		"the secret is s3cr3tValue":                       "the secret is " + Mask,
		"api key = abcd1234efgh":                          "api key = " + Mask,
		"set the api key: abcd1234efgh and retry":         "set the api key: " + Mask + " and retry",
		"Your API key is abcd1234efgh":                    "Your API key is " + Mask,
		"Access Key: AbCdEf123456":                        "Access Key: " + Mask,
		"Secret Key: AbCdEf123456":                        "Secret Key: " + Mask,
		"apikey is abcd1234efgh":                          "apikey is " + Mask,
		"log in with passphrase hunter2xyz today":         "log in with passphrase " + Mask + " today",
		"the passwd is hunter2xyz":                        "the passwd is " + Mask,
		"use password S3cr3t!x for the admin":             "use password " + Mask + " for the admin",
		"The password is 'Tr0ub4dor &3'.":                 "The password is '" + Mask + "'.",
		"the password is `hunter2xyz`":                    "the password is `" + Mask + "`",
		"db password is 20240101":                         "db password is " + Mask,
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
	// In a string of a call's arguments, and a result's text, too.
	args := json.RawMessage(`{"note":"the password is hunter2xyz"}`)
	assert.NotContains(t, string(Args(args, nil)), "hunter2xyz")
}

// Already masked before this session, kept so: a pair in a sentence,
// a key's shape after "token is", a line of a name and a value.
func TestS27SecretInProseAlreadyMasked(t *testing.T) {
	for in, want := range map[string]string{
		"then set PASSWORD=x and run":                           "then set PASSWORD=" + Mask + " and run",
		"password: S3cr3t!":                                     "password: " + Mask,
		"the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789": "the token is " + Mask,
		"passwd hunter2":                                        "passwd " + Mask,
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// Ordinary prose about secrets keeps its words: the value after "is"
// reads as a word (no digit, no symbol, not mixed case), is shorter than
// 6 bytes, or is a hyphenated adjective; or the noun before "is" is not
// the secret's (a field, a count, a manager).
func TestS27OrdinaryProseKept(t *testing.T) {
	for _, kept := range []string{
		"the password field is required",
		"token count: 42",
		"secret santa is on friday",
		"the password is required",
		"The password is incorrect.",
		"the password is correct",
		"the token is expired",
		"the token is invalid or expired",
		"The API key is missing.",
		"the api key is not set",
		"api key: rotate it monthly",
		"the secret is stored in vault",
		"the token is base64-encoded",
		"the secret is SHA256-hashed",
		"the secret is 256-bit",
		"the token is JWT",
		"the password is Required",
		"your password is too short",
		"a password is a secret",
		"the password manager is 1Password7",
		"max_tokens is 4096",
		"the token is 3600s",
		"password hash is $HASH",
		"the password is ${DB_PASSWORD}",
		"the password is $DB_PASSWORD",
		"use password authentication",
		"passwd is a command",
		"this is the password",
		"token bucket is empty",
		"the password is hunter", // letters only: not told from a word
		// Code and its comments (lines of Go's own source).
		"func DecryptPEMBlock(b *pem.Block, password []byte) ([]byte, error) {",
		"\tstruct passwd *result;",
		"static struct passwd mygetpwuid_r(int uid, char *buf) {",
		"\tvar pwd _C_struct_passwd",
		"// If the next token is token.CHAN we still don't know",
		"// If the returned token is [token.SEMICOLON], the corresponding",
		`tls: unsupported certificate: private key is *ed25519.PrivateKey, expected ed25519.PrivateKey`,
		"// ClientAuth is VerifyClientCertIfGiven",
		"The cookie is `Secure` unless the request is plain HTTP",
		`// If the token is "STOP", stop the scanning`,
		"// matchToken is flate's equivalent of Snappy's emitCopy.",
		"the token is invalid_grant",
		"source argument for a token is `args[token.index]`.",
		"Did I change my password again?",
		// Commands: passwd's argument is a user, a flag's placeholder.
		"sudo passwd alice01",
		"$ getent passwd vu-rawhide-81",
		"% openssl passwd -apr1 -salt xxxxxxxx password",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}

var proseSink string

// BenchmarkStringProse measures the string rule on text that holds the
// words the prose pass looks at (a short error message, a 64 KiB log of
// prose about tokens and keys with no secret in it, and one with a
// secret in a sentence), the whole rule and the prose pass alone, so its
// share shows in one run.
func BenchmarkStringProse(b *testing.B) {
	msg := "login failed: the password is incorrect and the token is expired"
	line := "the token is refreshed when the session key is rotated; password policy is strict, secret count: 42\n"
	text := strings.Repeat(line, 64<<10/len(line))
	secret := strings.Repeat(line, 64<<10/len(line)/2) + "the password is hunter2xyz\n" + strings.Repeat(line, 64<<10/len(line)/2)
	for _, c := range []struct{ name, s string }{{"message", msg}, {"text-64KiB", text}, {"secret-64KiB", secret}} {
		b.Run(c.name+"/String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				proseSink = String(c.s)
			}
		})
		b.Run(c.name+"/maskProse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				proseSink = maskProse(c.s)
			}
		})
	}
}
