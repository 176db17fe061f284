package registry_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type manyIn struct {
	Items []int `json:"items"`
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// The validator allocates some 300 bytes per JSON value it checks, and
// decoding some 145 more: 1 MB of arguments (the executor's default
// limit) holding 500,000 small integers allocated 307 MB, and 800 KB of
// wrong-typed values 243 MB, per call, before any limit on concurrent
// calls applies (arguments are checked as a call is admitted). Arguments
// of more than MaxArgValues values are now refused before they are
// decoded.
func TestAttackS31ManyValuesAreRefusedBeforeTheyCostMemory(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("sum", "sum", func(_ context.Context, in manyIn) (int, error) { return len(in.Items), nil }))
	entry, ok := reg.Lookup("sum")
	require.True(t, ok)
	for name, args := range map[string]string{
		"integers":     `{"items":[` + strings.Repeat("1,", 500000) + `1]}`,
		"wrong types":  `{"items":[` + strings.Repeat(`"a",`, 200000) + `1]}`,
		"empty arrays": `{"items":[` + strings.Repeat(`[],`, 300000) + `[]]}`,
	} {
		var err error
		n := allocated(func() { _, err = entry.CheckArgs([]byte(args)) })
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "values", name)
		assert.Less(t, n, uint64(16<<20), "%s: bytes allocated to refuse %d bytes of arguments", name, len(args))
	}
}

// Arguments of up to MaxArgValues values are checked as before.
func TestArgumentsUnderMaxArgValuesAreChecked(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("sum", "sum", func(_ context.Context, in manyIn) (int, error) { return len(in.Items), nil }))
	entry, _ := reg.Lookup("sum")
	n := registry.MaxArgValues - 10
	_, err := entry.CheckArgs([]byte(`{"items":[` + strings.Repeat("1,", n) + `1]}`))
	require.NoError(t, err)
	_, err = entry.CheckArgs([]byte(`{"items":[` + strings.Repeat("1,", n) + `"x"]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must be integer")
}
