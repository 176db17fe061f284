package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A Wi-Fi pre-shared key is a password under the name psk: in
// wpa_supplicant.conf (and wpa_passphrase's output, which repeats the
// passphrase in a comment), a NetworkManager keyfile, nmcli -s and an
// environment name. "Zq7" marks it.
func TestAttackS21WifiPSK(t *testing.T) {
	for _, text := range []string{
		"network={\n\tssid=\"home\"\n\t#psk=\"Zq7hunter2\"\n\tpsk=Zq7f00d1e2b3c4d5e6f\n}\n",
		"[wifi-security]\nkey-mgmt=wpa-psk\npsk=Zq7hunter2\n",
		"802-11-wireless-security.psk:           Zq7hunter2\n",
		"export WIFI_PSK=Zq7hunter2\n",
	} {
		assert.NotContains(t, String(text), "Zq7", "%q", text)
	}
	assert.NotContains(t, string(Args(json.RawMessage(`{"psk": "Zq7hunter2"}`), nil)), "Zq7")
	assert.True(t, LooksSecretEnv("WIFI_PSK"))
	// A key management's name says nothing secret.
	for _, kept := range []string{"key-mgmt=wpa-psk\n", "psk-mode: on\n", "802-11-wireless-security.psk-flags: 0\n"} {
		assert.Equal(t, kept, String(kept))
	}
}
