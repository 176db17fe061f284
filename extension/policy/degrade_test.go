package policy_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// degradeGovernance forbids write_file in the degraded mode, as the seed's
// governance file asks approval for it there.
const degradeGovernance = `
tools:
  write_file:
    forbidden_in_modes: [degraded, lockdown]
`

type writeArgs struct {
	Path string `json:"path"`
}

// writeFile writes to its path for real: /dev/full fails every write with
// ENOSPC, as a full disk does.
func writeFile(_ context.Context, a writeArgs) (string, error) {
	if err := os.WriteFile(a.Path, []byte("data"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", a.Path, err)
	}
	return "wrote " + a.Path, nil
}

func degradeExecutor(t *testing.T, opts ...policy.Option) (*executor.Executor, *policy.Policy) {
	t.Helper()
	p, err := policy.Parse([]byte(degradeGovernance), opts...)
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file", writeFile))
	return executor.MustNew(reg, executor.WithExtensions(p)), p
}

func write(t *testing.T, ex *executor.Executor, path string) *tool.Result {
	t.Helper()
	// A failed call's error is its result's (res.Err()): the result is what is judged.
	res, _ := ex.Execute(context.Background(), tool.Call{Name: "write_file", Args: []byte(fmt.Sprintf(`{"path":%q}`, path))})
	return res
}

// A call that fails because the disk is full switches the policy to
// degraded, says so on its result and tells the operator once; the next
// write is refused by the degraded rules.
func TestDiskFullSwitchesToDegraded(t *testing.T) {
	var told []string
	ex, p := degradeExecutor(t, policy.WithDegradeOnExhaustion(func(from string, cause error) {
		told = append(told, from+": "+cause.Error())
	}))
	res := write(t, ex, "/dev/full")
	require.NotNil(t, res.Error)
	assert.True(t, errors.Is(res.Error, syscall.ENOSPC), "the tool's real error: %v", res.Error)
	assert.Equal(t, tool.ModeDegraded, p.Mode())
	assert.Equal(t, "switched to degraded: no space left on device", res.Metadata[policy.MetaDegraded])
	require.Len(t, told, 1)
	assert.Contains(t, told[0], "normal: ")
	assert.Contains(t, told[0], "no space left on device")

	res = write(t, ex, t.TempDir()+"/f")
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "degraded forbids write_file: %v", res.Error)
	assert.Len(t, told, 1, "a second failure in degraded tells nobody again")

	require.NoError(t, p.SetMode(tool.ModeNormal)) // the operator decides when it is over
	assert.Nil(t, write(t, ex, t.TempDir()+"/f").Error)
}

// Without the option, a full disk is the call's failure only.
func TestDiskFullLeavesTheModeWithoutTheOption(t *testing.T) {
	ex, p := degradeExecutor(t)
	res := write(t, ex, "/dev/full")
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.ModeNormal, p.Mode())
	assert.NotContains(t, res.Metadata, policy.MetaDegraded)
}

// A stricter mode an operator chose stays: degrading never loosens.
func TestDegradeKeepsAStricterMode(t *testing.T) {
	for _, mode := range []string{tool.ModeLockdown, tool.ModeRecovery} {
		p := policy.New(policy.WithMode(mode), policy.WithDegradeOnExhaustion(nil))
		assert.False(t, p.Degrade(syscall.ENOSPC), mode)
		assert.Equal(t, mode, p.Mode())
	}
	p := policy.New(policy.WithMode(tool.ModeAlert))
	assert.True(t, p.Degrade(syscall.ENOMEM))
	assert.Equal(t, tool.ModeDegraded, p.Mode())
}

// Other failures do not switch: a missing directory, a refused
// permission, a tool's own error.
func TestOtherFailuresDoNotDegrade(t *testing.T) {
	ex, p := degradeExecutor(t, policy.WithDegradeOnExhaustion(nil))
	for _, path := range []string{t.TempDir() + "/missing/f", "/proc/version"} {
		res := write(t, ex, path)
		require.NotNil(t, res.Error, path)
		assert.Equal(t, tool.ModeNormal, p.Mode(), path)
	}
	assert.False(t, policy.Exhausted(errors.New("no space left on device")), "a message is not an errno")
	assert.True(t, policy.Exhausted(fmt.Errorf("audit: %w", &os.PathError{Op: "write", Path: "a", Err: syscall.EDQUOT})))
}

// Of many calls failing at once, one switches and the operator is told once.
func TestConcurrentExhaustionSwitchesOnce(t *testing.T) {
	var told atomic.Int32
	ex, p := degradeExecutor(t, policy.WithDegradeOnExhaustion(func(string, error) { told.Add(1) }))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { write(t, ex, "/dev/full") })
	}
	wg.Wait()
	assert.Equal(t, tool.ModeDegraded, p.Mode())
	assert.Equal(t, int32(1), told.Load())
}
