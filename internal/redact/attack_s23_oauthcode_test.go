package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An OAuth authorization code (and its PKCE verifier) in a URL's query or
// fragment, or in the token request's form body, is a credential until it
// is spent: whoever reads it first gets the tokens. Before the fix ?code=
// and &code= were kept whole. The tokens of an implicit flow's fragment
// (#access_token=, #id_token=) were already masked and stay so.
func TestAttackS23OAuthCodeInURL(t *testing.T) {
	for _, text := range []string{
		"GET /callback?code=Zq7authcode123&state=xyz HTTP/1.1\n",
		"https://app.example.com/cb?state=xyz&code=Zq7authcode123\n",
		"Location: https://app.example.com/cb#code=Zq7authcode123&state=1\n",
		"grant_type=authorization_code&code=Zq7authcode123&redirect_uri=https%3A%2F%2Fapp%2Fcb\n",
		"grant_type=authorization_code&code=Zq7authcode123&code_verifier=Zq7verifier\n",
		"login?next=%2Fcb%3Fcode%3DZq7authcode123\n",
		"https://app.example.com/cb#access_token=Zq7tok123&token_type=bearer\n",
		"https://app.example.com/cb#state=1&id_token=Zq7tok123\n",
		`{"url": "https://app.example.com/cb?code=Zq7authcode123&state=1"}`,
	} {
		got := String(text)
		assert.NotContains(t, got, "Zq7", "%q", text)
		assert.Contains(t, got, Mask, "%q", text)
	}
	// Only the code goes: the rest of the URL stays readable.
	assert.Equal(t, "/cb?code="+Mask+"&state=xyz", String("/cb?code=Zq7a&state=xyz"))
}

// A code that is not a query's parameter is a status or a program's
// (exit code=1, code: 200), and PKCE's challenge is public: kept.
func TestS23OAuthCodeNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"exit code=1\n",
		"code=1 msg=done\n",
		"HTTP status code: 404\n",
		"error: code=EACCES path=/tmp\n",
		"/authorize?response_type=code&code_challenge=E9Melhoa2Ow&code_challenge_method=S256\n",
		"?country_code=DE&zip_code=10115\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
	assert.False(t, strings.Contains(String("?code=Zq7x"), "Zq7"))
}
