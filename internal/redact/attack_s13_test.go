package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Secret names with a number after them, and those whose words are
// written together in lower or upper case. Django's password forms name
// their fields password1 and password2 (new_password1, new_password2), a
// second credential is token2 or access-token-2, and configurations write
// secretkey, privatekey or SECRETKEY: each was logged and audited in plain
// text, though password, token, secret_key and private_key were masked.
func TestAttackNumberedAndJoinedSecretNames(t *testing.T) {
	for _, name := range []string{
		"password1", "password2", "new_password1", "new_password2", "Password1", "PASSWORD2", "pwd1", "passwd0",
		"token2", "access-token-2", "refresh_token_2", "githubtoken2", "apiKey2", "api_key2", "secret01", "cookie2",
		"secretkey", "privatekey", "accesskey", "sshkey", "signingkey", "masterkey", "encryptionkey", "hmackey",
		"SECRETKEY", "PRIVATEKEY", "aws_secretkey", "privatekey2",
	} {
		assert.True(t, LooksSecret(name), "%q should look secret", name)
		args := json.RawMessage(`{"` + name + `":"hunter2abc","user":"bob"}`)
		out := Args(args, nil)
		require.True(t, json.Valid(out), "%s -> %s", args, out)
		assert.NotContains(t, string(out), "hunter2abc", "%s -> %s", args, out)
		assert.Contains(t, string(out), `"user":"bob"`)
		assert.NotContains(t, String(name+"=hunter2abc"), "hunter2abc", name)
	}
	for _, name := range []string{
		"max_tokens2", "token_count2", "tokens_used_1", "monkey", "turkey", "hockey", "whiskey", "keyboard2",
		"key2", "sha256", "md5", "ipv4", "x509", "page2", "v2", "passenger1", "compass2", "2",
	} {
		assert.False(t, LooksSecret(name), "%q should not look secret", name)
	}
}
