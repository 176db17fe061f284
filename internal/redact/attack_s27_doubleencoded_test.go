package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A query encoded twice: a redirect's target holding a redirect's target
// (?next=%2Flogin%3Fnext%3D%252Fcb%253Ftoken%253D...), as a login page
// passes one through another. Before the fix the rule read a pair
// encoded once (%3D) and a URL encoded once (%3A%2F%2F), and the token
// and the password went whole into records.
func TestAttackS27DoublyEncodedQuery(t *testing.T) {
	for in, want := range map[string]string{
		"https://h.example.com/cb?next=%252Fx%253Ftoken%253Dabcdef123456":                 "https://h.example.com/cb?next=%252Fx%253Ftoken%253D" + Mask,
		"https://h.example.com/cb?next=%2526token%253Dabcdef123456":                       "https://h.example.com/cb?next=%2526token%253D" + Mask,
		"https://h.example.com/cb?next=%2526token%253Dabcdef123456%2526page%253D2":        "https://h.example.com/cb?next=%2526token%253D" + Mask + "%2526page%253D2",
		"/login?next=%2Fauth%3Fnext%3D%252Fcb%253Faccess_token%253DZq7abcdef%2526x%253D1": "/login?next=%2Fauth%3Fnext%3D%252Fcb%253Faccess_token%253D" + Mask + "%2526x%253D1",
		"GET /r?u=%252Fapi%253FAPI_KEY%253dZq7abcdef HTTP/1.1":                            "GET /r?u=%252Fapi%253FAPI_KEY%253d" + Mask + " HTTP/1.1",
		"?next=https%253A%252F%252Fbob%253AZq7pw%2540db.example.com%252Fapp":              "?next=https%253A%252F%252Fbob%253A" + Mask + "%2540db.example.com%252Fapp",
		"?next=https%253a%252f%252fbob%253aZq7%2525pw%2540db.example.com":                 "?next=https%253a%252f%252fbob%253a" + Mask + "%2540db.example.com",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// Doubly encoded queries and URLs without a secret stay as they are.
func TestS27DoublyEncodedQueryKept(t *testing.T) {
	for _, kept := range []string{
		"https://h.example.com/cb?next=%252Fx%253Fpage%253D2%2526sort%253Dname",
		"?next=https%253A%252F%252Fdb.example.com%253A5432%252Fapp",
		"?next=https%253A%252F%252Fbob%2540db.example.com%252Fapp",
		"?next=https%253A%252F%252Fdb.example.com%253A5432%252Fu%2540x",
		"100%253D is not a pair",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
