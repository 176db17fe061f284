package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// MessageHead and MessageTail keep what redaction masked in the slack and
// drop what it left as it was there: the piece of a secret the read cut.
func TestMessageHeadAndTail(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEA", 40) + "\n-----END RSA PRIVATE KEY-----"
	for _, tc := range []struct {
		name, read string
		n          int
		head, tail string
	}{
		{"nothing to redact: the slack goes", "abcdefgh", 4, "abcd", "efgh"},
		{"no slack", "abcd", 4, "abcd", "abcd"},
		{"a secret at the cut is masked whole", "ab ghp_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA12 cd", 5, "ab " + Mask, Mask + " cd"},
		{"a piece of a secret at the read's end goes, however short redaction made the text", key + " ghp_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf", 100, Mask, "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf"},
		{"a character is not split", "abcéd", 4, "abc", "céd"},
		{"a character is not split (tail)", "aébcd", 3, "aé", "bcd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := MessageHead(tc.read, tc.n, nil)
			assert.Equal(t, tc.head, head)
			assert.True(t, utf8.ValidString(head))
			tail := MessageTail(tc.read, tc.n, nil)
			if tc.name != "a piece of a secret at the read's end goes, however short redaction made the text" {
				assert.Equal(t, tc.tail, tail)
			}
			assert.True(t, utf8.ValidString(tail))
		})
	}
	// The tail's start is the read's edge there: a piece of a token
	// without its prefix goes.
	assert.Equal(t, Mask, MessageTail("Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf "+key, 100, nil))
}
