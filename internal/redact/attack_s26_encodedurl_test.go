package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A URL with a password, percent-encoded as the value of another URL's
// query (a login's ?next=, a callback's ?url=, a proxy's or a preview
// service's target), went whole into records: the rule knew the password
// of a URL as written, and a secret pair inside an encoded query
// (next=%2Fcb%3Ftoken%3D…), not the user:password@ of an encoded URL.
func TestAttackS26PasswordOfAnEncodedURL(t *testing.T) {
	for _, text := range []string{
		"https://app.example.com/login?next=https%3A%2F%2Fbob%3Ahunter2xyz%40db.example.com%2F",
		"GET /cb?url=https%3a%2f%2fbob%3ahunter2xyz%40h&x=1",
		"postgres%3A%2F%2Fbob%3Ahunter2xyz%40db%2Fapp",
		"redis%3A%2F%2F%3Ahunter2xyz%40cache%3A6379",
	} {
		got := Message(text, nil)
		assert.NotContains(t, got, "hunter2xyz", "in %q", text)
		assert.Contains(t, got, Mask, "in %q", text)
		args, _ := json.Marshal(map[string]string{"url": text})
		assert.NotContains(t, string(Args(args, nil)), "hunter2xyz")
	}
	// The user and host stay; an encoded URL without a password stays.
	assert.Equal(t, "next=https%3A%2F%2Fbob%3A"+Mask+"%40db.example.com%2F",
		Message("next=https%3A%2F%2Fbob%3Ahunter2xyz%40db.example.com%2F", nil))
	for _, text := range []string{
		"next=https%3A%2F%2Fdb.example.com%3A5432%2Fapp",
		"next=https%3A%2F%2Fbob%40db.example.com%2F",
		"q=a%3Ab%40c and https%3A%2F%2Fh%2Fx%3Fy%3D1%40",
		"next=https%3A%2F%2Fhost%3A8443%2Fusers%2F%40me",
	} {
		assert.Equal(t, text, Message(text, nil))
	}
}
