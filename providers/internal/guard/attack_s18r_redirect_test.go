package guard_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// strings.ToLower folds U+0130 to "i" and U+212A to "k", so origin.Of
// gave api.openaİ.com (dialed as api.xn--openai-uyd.com, another
// registrable name) the origin of api.openai.com; the hosts must be equal
// but for ASCII case.
func TestAttackS18RFoldedHostIsAnotherOrigin(t *testing.T) {
	for _, to := range []string{
		"https://api.opena\u0130.com/v1",
		"https://api.opena%C4%B0.com/v1",
		"https://api.openai.co\u212A/v1",
		"https://API.OPENA\u0130.COM/v1",
	} {
		assert.Error(t, redirect(t, "https://api.openai.com/v1", to, 1), to)
	}
	assert.NoError(t, redirect(t, "https://api.openai.com/v1", "HTTPS://API.OpenAI.COM:443/v2", 1))
}
