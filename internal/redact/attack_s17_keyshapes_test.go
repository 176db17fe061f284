package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Credentials whose shape says what they are, under a name that says
// nothing (a "text", a "command", an error quoting a config): the rule
// knew the shapes of AWS, GitHub, OpenAI, Anthropic, Slack, Google API
// keys, GitLab, npm, Stripe, Hugging Face and JWTs, and let these through
// whole into logs, audit records, spans and errors.
func TestAttackS17MoreKeyShapes(t *testing.T) {
	for _, tc := range []struct{ who, key string }{
		{"SendGrid", "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"},
		{"Stripe webhook secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{"Google OAuth access token", "ya29.a0AfH6SMC8xJrLzq7Vb0pW9yR3tKmN2sQeXoZuHiGfDc"},
		{"DigitalOcean", "dop_v1_b7c0f5e6a1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8"},
		{"Shopify", "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"},
		{"Databricks", "dapi0123456789abcdef0123456789abcdef"},
		{"HashiCorp Vault", "hvs.CAESIJlU9NVYbmtKDHfw7UHFQ1TgeYmxNmTh5TlTcmUrDRXx"},
		{"Telegram bot", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"},
		{"Discord webhook", "https://discord.com/api/webhooks/123456789012345678/Zh1pXv-Hk2G3yLm9Qr8sTuV0wXyZaBcDeFgHiJkLmNoPqRsTuVwXyZ01234567-89"},
		{"age", "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS7ZQ8"},
		{"PyPI", "pypi-AgEIcHlwaS5vcmcCJGE4YjU0NzNhLTk2ZjctNGQ1Ni1hYzM3LTEwMmM3NjM4YjQ0MQACKlszLCJ"},
		{"Atlassian", "ATATT3xFfGF0T4jL2kYv9nRq8Hs7Pw6Mb5Vc4Xz3Ad2Se1Df0Gh9Jk8Lm7Np6Qr5St4Uv3Wx2Yz1"},
		{"Grafana service account", "glsa_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed_a1b2c3d4"},
		{"Postman", "PMAK-64c8f2a1b3d4e5f6a7b8c9d0-1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e"},
		{"Doppler", "dp.st.prd.Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA12345"},
		{"Linear", "lin_api_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA12345"},
		{"New Relic", "NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ0"},
		{"Supabase", "sbp_0123456789abcdef0123456789abcdef01234567"},
	} {
		t.Run(tc.who, func(t *testing.T) {
			for _, text := range []string{
				tc.key,
				"error: the upstream refused " + tc.key + " (revoked?)",
				"export CONFIG_VALUE='" + tc.key + "'",
			} {
				got := Message(text, nil)
				assert.NotContains(t, got, tc.key, "in %q", text)
				assert.Contains(t, got, Mask, "in %q", text)
			}
			args, err := json.Marshal(map[string]string{"text": "use " + tc.key})
			require.NoError(t, err)
			assert.NotContains(t, string(Args(args, nil)), tc.key)
		})
	}
}

// Text that begins like those shapes and is not one stays as it is.
func TestS17KeyShapesLeaveOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"SG.1 is the first section",
		"the dapi team and the hvs. prefix",
		"call 123456789:12 of the log",
		"see https://discord.com/api/webhooks for the docs",
		"pypi-upload failed: NRAK-1",
		"ya29.short and glsa_ and sbp_ are prefixes",
		"docs at dp.st.example.com",
	} {
		assert.Equal(t, s, Message(s, nil))
		assert.False(t, strings.Contains(Message(s, nil), Mask), s)
	}
}
