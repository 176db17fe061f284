package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Shell, Wrapper and Interpreter find a rule as Classify does: the exact
// name, else the longest "prefix*" key, whatever the map's order.
func TestRuleLookups(t *testing.T) {
	r := DefaultRules()
	r.Interpreters["py*"] = &InterpreterRule{Level: Dangerous, CodeFlags: []string{"-x"}}
	c, err := New(r)
	require.NoError(t, err)
	for range 20 { // map order varies between runs and iterations
		ir, ok := c.Interpreter("python3.12")
		require.True(t, ok)
		assert.Same(t, r.Interpreters["python3.*"], ir, "the longest prefix, python3.*, not py*")
		ir, ok = c.Interpreter("pyright")
		require.True(t, ok)
		assert.Same(t, r.Interpreters["py*"], ir)
	}
	ir, ok := c.Interpreter("python3")
	require.True(t, ok)
	assert.Same(t, r.Interpreters["python3"], ir, "an exact name before any prefix")
	_, ok = c.Interpreter("ruby3") // no "ruby*" key
	assert.False(t, ok)
	sh, ok := c.Shell("bash")
	require.True(t, ok)
	assert.Same(t, r.Shells["bash"], sh)
	w, ok := c.Wrapper("timeout")
	require.True(t, ok)
	assert.Same(t, r.Wrappers["timeout"], w)
	_, ok = c.Wrapper("bash")
	assert.False(t, ok)
}
