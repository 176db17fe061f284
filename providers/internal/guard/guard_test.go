package guard_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
)

const key = "sk-proj-HOSTILEtest0123456789abcdef"

// Attack: an error response (a hostile OpenAI-compatible server, a proxy)
// that echoes the key the request carried in an encoding, which anyone
// reading a log of the error decodes. The guard masked the key only as it
// is and as json.Marshal escapes it; the one rule for a call's secret
// values (redact.Scrub) also finds it behind any mix of JSON escapes,
// percent-encoded, in hex and in base64, and the guard uses it.
func TestAttackEncodedKeyEchoIsRedacted(t *testing.T) {
	var unicode strings.Builder
	for _, c := range key {
		fmt.Fprintf(&unicode, `\u%04x`, c)
	}
	var percent strings.Builder
	for _, c := range []byte(key) {
		fmt.Fprintf(&percent, "%%%02X", c)
	}
	for name, echo := range map[string]string{
		"as it is":      key,
		"JSON escapes":  unicode.String(),
		"percent":       percent.String(),
		"hex":           hex.EncodeToString([]byte(key)),
		"base64":        base64.StdEncoding.EncodeToString([]byte(key)),
		"basic base64":  base64.StdEncoding.EncodeToString([]byte("user:" + key)),
		"base64 of url": base64.URLEncoding.EncodeToString([]byte(key)),
	} {
		body := `{"error":{"message":"key refused: ` + echo + `"}}`
		g := guard.New(0, "", "test")
		req := httptest.NewRequest(http.MethodPost, "http://model.test/v1/chat", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := g.Middleware(req, func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusUnauthorized, Body: io.NopCloser(strings.NewReader(body))}, nil
		})
		require.NoError(t, err, name)
		got, err := io.ReadAll(res.Body)
		require.NoError(t, err, name)
		assert.NotContains(t, string(got), echo, "%s: the body still holds the key", name)
		assert.Contains(t, string(got), "key refused: ", name)

		text := g.Err(errors.New("POST: 401 " + body)).Error()
		assert.NotContains(t, text, echo, "%s: the error still holds the key", name)
	}
}
