package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCustomToolOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	for _, want := range []string{
		// schema: nested struct inlined, enum, pointer optional, time.Time as date-time
		`"format": "date-time"`,
		`"canary"`,
		`"format": "enum"`, // Gemini marks string enums
		`== secret argument paths: [token]`,
		// exports and their notes
		`"strict": false`,
		`not strict: free-form object (map) at labels`,
		`"functionDeclarations"`,
		`left out optional field labels`,
		// validation names every field and rule
		`status=failed code=invalid_arguments`,
		`at: must be a valid date-time`,
		`replicas: must be <= 20, got 50`,
		`strategy: must be one of "rolling", "blue-green", "canary"`,
		`version: does not match pattern`,
		// the successful call, logged with the secret redacted
		`"token":"[REDACTED]"`,
		`status=succeeded`,
		`"steps":["canary v1.4.2 to eu-west-1/prod-eu-1 with 4 replicas","canary v1.4.2 to us-east-1/prod-us-2 with 4 replicas","notify #releases via slack"]`,
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "dpl_9f8e7d6c", "the secret never reaches the log")
}
