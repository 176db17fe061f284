package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
