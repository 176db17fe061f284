package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A number tagged secret was echoed in its validation error ("pin: must
// be >= 100000, got 1234"). The rule stays; the value goes.
func TestSecretValuesNeverInErrors(t *testing.T) {
	v, err := Compile([]byte(`{"type":"object","properties":{
		"pin":{"type":"integer","minimum":100000},
		"items":{"type":"array","items":{"type":"object","properties":{"code":{"type":"string","maxLength":2}}}},
		"env":{"type":"object","additionalProperties":{"type":"object","properties":{"value":{"type":"string","maxLength":1}}}},
		"db_password":{"type":"string","minLength":12},
		"count":{"type":"integer","minimum":10}}}`))
	require.NoError(t, err)
	m, err := Decode([]byte(`{"pin":1234,"items":[{"code":"SECRETCODE"}],"env":{"A":{"value":"hunter2"}},"db_password":"short","count":3}`))
	require.NoError(t, err)

	plain := v.Validate(m).Error()
	assert.Contains(t, plain, "got 1234", "without WithSecrets a plain field shows its value")

	msg := v.WithSecrets([]string{"pin", "items[].code", "env{}.value"}).Validate(m).Error()
	for _, secret := range []string{"1234", "got 10", "got 7", "got 5"} {
		assert.NotContains(t, msg, secret)
	}
	assert.Contains(t, msg, "pin: must be >= 100000 (the value is secret and not shown)")
	assert.Contains(t, msg, "items[0].code: length must be <= 2 (the value is secret")
	assert.Contains(t, msg, "env.A.value: length must be <= 1 (the value is secret")
	assert.Contains(t, msg, "db_password: length must be >= 12 (the value is secret", "a name that looks secret is hidden without a tag")
	assert.Contains(t, msg, "count: must be >= 10, got 3", "other fields keep their values")
}
