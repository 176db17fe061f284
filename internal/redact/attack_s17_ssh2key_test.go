package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ssh.com (RFC 4716 style) private key file, which ssh.com's tools
// write and PuTTYgen exports ("Export ssh.com key"): its armour has four
// dashes and spaces, not PEM's five, and the rule that masks PEM private
// key blocks and PuTTY's files let it through whole. The public key in the
// same armour is no secret and stays.
func TestAttackS17SSH2PrivateKey(t *testing.T) {
	const body = "P2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0e3JzYS1wa2NzMXYyLW9hZXB9fQ"
	key := "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key-20260101\"\n" + body + "\n---- END SSH2 ENCRYPTED PRIVATE KEY ----"
	for _, text := range []string{
		key,
		"cannot load " + key + " as a key",
		"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\r\n" + body, // cut short
	} {
		got := Message(text, nil)
		assert.NotContains(t, got, body[:24], "in %q", text)
		assert.Contains(t, got, Mask)
	}
	args, err := json.Marshal(map[string]string{"content": key})
	require.NoError(t, err)
	assert.NotContains(t, string(Args(args, nil)), body[:24])

	pub := "---- BEGIN SSH2 PUBLIC KEY ----\nComment: \"x\"\nAAAAB3NzaC1yc2EAAAADAQABAAABAQC\n---- END SSH2 PUBLIC KEY ----"
	assert.Equal(t, pub, Message(pub, nil), "a public key is no secret")
}
