package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A quoted value holding an escaped quote is masked to its real end, in
// text and in JSON written inside a log line (one and two levels deep).
func TestAttackS22EscapedQuoteInValue(t *testing.T) {
	for _, text := range []string{
		`password="Zq7a\"Zq7b c"` + "\n",
		`export PASSWORD="Zq7hun\"Zq7ter2 more"` + "\n",
		`log: {\"password\":\"Zq7hun\\\"Zq7ter2\"}` + "\n",
		`msg="{\"token\":\"Zq7ab\\\"Zq7cd\"}"` + "\n",
		`outer: {\\\"token\\\":\\\"Zq7ab\\\\\\\"Zq7cd\\\"}` + "\n",
		`password='Zq7it''Zq7s'` + "\n",
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
	}
	// The rest of the line after the value is kept.
	assert.Equal(t, `password="`+Mask+`" user="bob"`, String(`password="a\"b" user="bob"`))
	assert.Equal(t, `log: {\"password\":\"`+Mask+`\",\"user\":\"bob\"}`, String(`log: {\"password\":\"a\\\"b\",\"user\":\"bob\"}`))
	assert.Equal(t, `password='' user='bob'`, String(`password='' user='bob'`))
}
