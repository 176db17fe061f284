package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// vaultLegacy is an old HashiCorp Vault service token: "s." and 24
// base62 characters.
const vaultLegacy = "s.Zq7AbCdEfGhIjKlMnOpQrSt1"

// An old Vault token ("s." and 24 base62 characters) where nothing names
// it (vault login's argument, a sentence, a JSON value of its own) is
// masked; before the fix it was shown. The new shapes (hvs., hvb., hvr.)
// were masked already and stay so.
func TestAttackS23VaultTokens(t *testing.T) {
	for _, text := range []string{
		"vault login " + vaultLegacy + "\n",
		"your token is " + vaultLegacy + ", keep it safe\n",
		vaultLegacy,
		"(" + vaultLegacy + ")",
		"token " + vaultLegacy + ".\n",
		"vault login hvs.CAESIZq7abcdefghijklmnopqrstuvwxyzGh4KHGh2cy5abc\n",
		"hvb.AAAAAQZq7abcdefghijklmnopqrstuvwx_yz-0123456789\n",
		"hvr.Zq7abcdefghijklmnopqrstu\n",
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
		assert.Contains(t, got, Mask, "%q", text)
	}
	got := string(Args(json.RawMessage(`{"output": "`+vaultLegacy+`"}`), nil))
	assert.Equal(t, `{"output": "`+Mask+`"}`, got)
}

// What only looks like one is kept: a field of code (s.) whose name is
// 24 letters, one glued to a longer word, or a shorter or longer run.
func TestS23VaultTokenNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"\treturn s.maxConcurrentRequestsTotal\n", // no digit: a name
		"x := s.handleIncomingRequest24(ctx)\n",   // a call
		"cfgs.Zq7AbCdEfGhIjKlMnOpQrSt1\n",         // glued to a word
		"s.Zq7AbCdEfGhIjKlMnOpQrSt12\n",           // 25 characters
		"s.Zq7AbCdEfGhIjKlMnOpQrS\n",              // 22
		"path/s.Zq7AbCdEfGhIjKlMnOpQrSt1\n",       // a file's
		"s.zq7abcdefghijklmnopqrst1\n",            // no upper case
	} {
		assert.Equal(t, kept, String(kept))
	}
}
