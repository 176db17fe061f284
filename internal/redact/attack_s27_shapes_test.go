package redact

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A JWT whose payload is not a JSON object beginning with a quote: "{}"
// (e30), or written with a blank or a line break after its brace (eyA,
// ewo). The shape rule wanted "eyJ" for both parts and kept these whole.
func TestAttackS27JWTPayloadShapes(t *testing.T) {
	for _, jwt := range []string{
		"eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.e30.Et9HFtf9R3GEMA0IICOfFMVXY7kkTX1wr4qCyhIf58U",
		"eyJhbGciOiJIUzI1NiJ9.eyAic3ViIjogIjEyMyJ9.c2lnbmF0dXJlLWJ5dGVz",
		"eyJhbGciOiJIUzI1NiJ9.ewogICJzdWIiOiAiMTIzIgp9.c2lnbmF0dXJlLWJ5dGVz",
	} {
		assert.Equal(t, "seen in the log "+Mask, String("seen in the log "+jwt), jwt)
	}
}

// A Docker config's JSON in base64 as other tools indent it: two or four
// spaces (jq, Python's json.dumps(indent=2), an editor), CRLF line ends
// (Windows), a blank after the brace. The rule knew kubectl's compact
// form and docker's tabs only.
func TestAttackS27DockerConfigBase64Indents(t *testing.T) {
	for _, cfg := range []string{
		"{\n  \"auths\": {\n    \"ghcr.io\": {\n      \"auth\": \"Ym9iOlpxN3B3\"\n    }\n  }\n}",
		"{\n    \"auths\": {\n        \"ghcr.io\": {\n            \"auth\": \"Ym9iOlpxN3B3\"\n        }\n    }\n}",
		"{\r\n  \"auths\": {\r\n    \"ghcr.io\": {\r\n      \"auth\": \"Ym9iOlpxN3B3\"\r\n    }\r\n  }\r\n}",
		"{\r\n\t\"auths\": {\r\n\t\t\"ghcr.io\": {\r\n\t\t\t\"auth\": \"Ym9iOlpxN3B3\"\r\n\t\t}\r\n\t}\r\n}",
		"{ \"auths\": { \"ghcr.io\": { \"auth\": \"Ym9iOlpxN3B3\" } } }",
	} {
		enc := base64.StdEncoding.EncodeToString([]byte(cfg))
		assert.Equal(t, "data "+Mask, String("data "+enc), "%q", cfg)
	}
}

// Base64 of other JSON, and dotted names that begin with eyJ-like words,
// stay.
func TestS27ShapesKept(t *testing.T) {
	for _, kept := range []string{
		base64.StdEncoding.EncodeToString([]byte("{\n  \"credsStore\": \"desktop\"\n}")),
		"eyJhbGciOiJIUzI1NiJ9 is a JWT header alone",
		"eyes.example.com",
		"key.eyJvalue.x",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
