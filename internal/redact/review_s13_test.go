package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReviewS13WrappedEncodedPrivateKey: d4f48db masks a PEM private key
// encoded whole in base64, but base64(1) wraps its output at 76
// characters (openssl base64 at 64, a YAML block scalar wherever it is
// written), and the rule matched to the end of the first line: only it
// was masked, and every other line of the key was kept.
func TestReviewS13WrappedEncodedPrivateKey(t *testing.T) {
	body := strings.Repeat("MIIEowIBAAKCAQEAhunter2secretbitsXYZ0123456789abcdefghijklmnop\n", 12)
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\n"
	enc := base64.StdEncoding.EncodeToString([]byte(pem))
	wrap := func(s string, n int, indent string) string {
		var b strings.Builder
		for len(s) > n {
			b.WriteString(indent + s[:n] + "\n")
			s = s[n:]
		}
		b.WriteString(indent + s + "\n")
		return b.String()
	}
	for _, in := range []string{
		wrap(enc, 76, ""),
		wrap(enc, 64, ""),
		"data:\n  tls.key: |\n" + wrap(enc, 76, "    "),
		strings.ReplaceAll(wrap(enc, 76, ""), "\n", "\r\n"),
	} {
		got, kept := strings.ReplaceAll(String(in), "\n", ""), 0
		for i := 80; i+40 < len(enc); i += 40 {
			if strings.Contains(got, enc[i:i+12]) {
				kept++
			}
		}
		assert.Zero(t, kept, "pieces of the key kept in %.200q", got)
	}
	cert := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n" + body + "-----END CERTIFICATE-----\n"))
	plain := wrap(cert, 76, "") + "next line\n"
	assert.Equal(t, plain, String(plain), "a certificate stays")
	after := wrap(enc, 76, "") + "QUJD\nnext line\n"
	assert.Contains(t, String(after), "next line", "the text after the key stays")
}

// TestReviewS13NumberedPlaceholderNames: 64b80d8 drops the digits ending
// a word before LooksSecretEnv judges it (DB_PASS2), so in a URL's query,
// where names are judged tersely, ?key1=value1&key2=value2, the
// placeholder of every query-string example, had both values masked,
// though key2 alone does not look secret (LooksSecret) and was kept
// before. key1 and key2 in a query count no more; KEY2=… (an environment
// name), GPG_KEY2, ?key= and pass1/pass2 (a form's password and its
// confirmation) still do.
func TestReviewS13NumberedPlaceholderNames(t *testing.T) {
	for _, s := range []string{
		"https://example.com/search?key1=value1&key2=value2",
		"GET /api?page2=3&key2=x",
		"see ?Key1=a;keys2=b",
	} {
		assert.Equal(t, s, String(s))
	}
	for _, name := range []string{"DB_PASS2", "GPG_KEY2", "KEY", "KEY2", "key2", "pass1", "sig1"} {
		assert.True(t, LooksSecretEnv(name), name)
	}
	assert.Equal(t, "KEY2="+Mask, String("KEY2=value2"))
	assert.Equal(t, "?x=1&gpg_key2="+Mask, String("?x=1&gpg_key2=abc"))
	assert.Equal(t, "?pass1="+Mask+"&pass2="+Mask, String("?pass1=hunter2&pass2=hunter2"))
	assert.Equal(t, "https://h/x?key="+Mask, String("https://h/x?key=AIzaSyA0123456789abcdefghijkl"))
	assert.Equal(t, "DB_PASS2="+Mask, String("DB_PASS2=hunter2"))
}
