package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// OpenAI's arguments are a string holding JSON; some compatible servers
// send the JSON itself. The whole turn was refused as "not JSON" (it is),
// so the calls beside it were lost too. A JSON value given directly is
// taken as the arguments (the executor answers one that is not an object
// with invalid_arguments the model can correct).
func TestOpenAIArgumentsNotAString(t *testing.T) {
	calls, err := wire.OpenAIChat.Calls([]byte(`{"role":"assistant","tool_calls":[
		{"id":"a","type":"function","function":{"name":"get_weather","arguments":{"city":"Paris"}}},
		{"id":"b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}},
		{"id":"c","type":"function","function":{"name":"get_weather","arguments":[1]}},
		{"id":"d","type":"function","function":{"name":"get_weather","arguments":null}}]}`))
	require.NoError(t, err)
	require.Len(t, calls, 4)
	assert.JSONEq(t, `{"city":"Paris"}`, string(calls[0].Args))
	assert.JSONEq(t, `{"city":"Rome"}`, string(calls[1].Args))
	assert.JSONEq(t, `[1]`, string(calls[2].Args))
	assert.JSONEq(t, `{}`, string(calls[3].Args))

	calls, err = wire.OpenAIResponses.Calls([]byte(`{"output":[
		{"type":"function_call","call_id":"a","name":"get_weather","arguments":{"city":"Paris"}}]}`))
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.JSONEq(t, `{"city":"Paris"}`, string(calls[0].Args))
}
