package builtin_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

func systemExecutor(t *testing.T) *executor.Executor {
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.System()...))
	return executor.MustNew(reg)
}

func TestSystemMetricsFromProc(t *testing.T) {
	ex := systemExecutor(t)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "system_metrics"})
	require.NoError(t, err)
	var m builtin.Metrics
	require.NoError(t, json.Unmarshal(res.Output, &m))
	assert.Positive(t, m.CPU.Count)
	assert.GreaterOrEqual(t, m.CPU.SampleMillis, int64(100))
	assert.True(t, m.CPU.UsagePercent >= 0 && m.CPU.UsagePercent <= 100, "%v", m.CPU.UsagePercent)
	assert.Positive(t, m.Memory.TotalBytes)
	assert.LessOrEqual(t, m.Memory.AvailableBytes, m.Memory.TotalBytes)
	assert.Positive(t, m.Disk.TotalBytes)
	assert.Equal(t, "/", m.Disk.Path)
	assert.Positive(t, m.UptimeSeconds)
	assert.Positive(t, m.Load.Processes)
	assert.Contains(t, res.Text(), "cpu: ")
}

func TestProcessHealthScansProc(t *testing.T) {
	ex := systemExecutor(t)
	cmd := exec.Command("sleep", "30")
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	check := func(name string) builtin.ProcessStatus {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "process_health", Args: json.RawMessage(`{"name":"` + name + `"}`)})
		require.NoError(t, err)
		var st builtin.ProcessStatus
		require.NoError(t, json.Unmarshal(res.Output, &st))
		return st
	}
	st := check("sleep")
	assert.True(t, st.Running)
	assert.Contains(t, st.PIDs, pid)

	st = check("no-such-process-xyz")
	assert.False(t, st.Running)
	assert.Empty(t, st.PIDs)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	st = check("sleep")
	assert.NotContains(t, st.PIDs, pid, "a dead process is not running")

	res, _ := ex.Execute(context.Background(), tool.Call{ID: "2", Name: "process_health", Args: json.RawMessage(`{"name":"/usr/bin/sleep"}`)})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code)
}
