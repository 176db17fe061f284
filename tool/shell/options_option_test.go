package shell_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

func runTool(t *testing.T, tl tool.Tool, call tool.Call) (*tool.Result, time.Duration) {
	t.Helper()
	reg := registry.New()
	require.NoError(t, reg.Register(tl))
	start := time.Now()
	res, _ := executor.MustNew(reg).Execute(context.Background(), call)
	require.NotNil(t, res)
	return res, time.Since(start)
}

// WithLimits bounds every run of a NewCommand and a NewBash tool: a
// timeout kills the command, an output cap cuts the capture.
func TestWithLimitsBoundsEveryRun(t *testing.T) {
	dir := t.TempDir()
	sb := processEngine(t, dir) // Timeout 20s, OutputBytes 1 MiB
	lim := shell.WithLimits(sandbox.Limits{Timeout: 300 * time.Millisecond, OutputBytes: 256})

	sleep, err := shell.NewCommand("nap", "Sleep", sb, []string{"sleep", "10"}, lim)
	require.NoError(t, err)
	bash, err := shell.NewBash(sb, mustWorkspace(t, dir), lim)
	require.NoError(t, err)
	for name, c := range map[string]struct {
		tl   tool.Tool
		call tool.Call
	}{
		"command": {sleep, tool.Call{ID: "c", Name: "nap"}},
		"bash":    {bash, bashCall("sleep 10")},
	} {
		res, took := runTool(t, c.tl, c.call)
		require.NotNil(t, res.Error, name)
		assert.Equal(t, "timeout", res.Metadata[shell.MetaKilledBy], "%s: %v", name, res.Error)
		assert.Less(t, took, 5*time.Second, name)
	}

	seq, err := shell.NewCommand("count", "Count", sb, []string{"seq", "1", "2000"}, lim)
	require.NoError(t, err)
	for name, c := range map[string]struct {
		tl   tool.Tool
		call tool.Call
	}{
		"command": {seq, tool.Call{ID: "c", Name: "count"}},
		"bash":    {bash, bashCall("seq 1 2000")},
	} {
		res, _ := runTool(t, c.tl, c.call)
		require.True(t, res.OK(), "%s: %v", name, res.Error)
		assert.Equal(t, true, res.Metadata[shell.MetaTruncated], name)
		assert.LessOrEqual(t, len(res.Metadata[shell.MetaStdout].(string)), 256+64, "%s: the capture is cut to the tool's cap", name)
	}

	// Without it, the engine's limits: the whole output.
	plain, err := shell.NewCommand("count", "Count", sb, []string{"seq", "1", "2000"})
	require.NoError(t, err)
	res, _ := runTool(t, plain, tool.Call{ID: "c", Name: "count"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, false, res.Metadata[shell.MetaTruncated])
	assert.Contains(t, res.Metadata[shell.MetaStdout], "\n1999\n2000\n")
}

// A tool never gets more than its engine: a run asking for more than the
// engine's limits is refused before it starts, naming the limit.
func TestWithLimitsNeverExceedTheEngine(t *testing.T) {
	dir := t.TempDir()
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir), sandbox.WithLimits(sandbox.Limits{Timeout: 300 * time.Millisecond, OutputBytes: 1 << 20}))
	require.NoError(t, err)
	tl, err := shell.NewCommand("nap", "Sleep", sb, []string{"sleep", "10"}, shell.WithLimits(sandbox.Limits{Timeout: time.Minute}))
	require.NoError(t, err)
	res, took := runTool(t, tl, tool.Call{ID: "c", Name: "nap"})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeResourceLimit, res.Error.Code)
	assert.Contains(t, res.Error.Message, "timeout limit 1m0s is over the parent's 300ms")
	assert.NotContains(t, res.Metadata, shell.MetaExitCode, "nothing ran")
	assert.Less(t, took, 5*time.Second)
}

// WithName, WithDescription and WithRisk shape a NewBash tool: it is
// registered and called under its name, and the model reads its
// description; without them it is "bash", DefaultBashDescription, high.
func TestWithNameDescriptionRiskShapeBash(t *testing.T) {
	dir := t.TempDir()
	sb := processEngine(t, dir)
	b, err := shell.NewBash(sb, mustWorkspace(t, dir), shell.WithName("repo_shell"),
		shell.WithDescription("Run a command line in the checked-out repository."), shell.WithRisk(tool.RiskMedium))
	require.NoError(t, err)
	spec := b.Spec()
	assert.Equal(t, "repo_shell", spec.Name)
	assert.Equal(t, "Run a command line in the checked-out repository.", spec.Description)
	assert.Equal(t, tool.RiskMedium, spec.Risk)

	reg := registry.New()
	require.NoError(t, reg.Register(b))
	ex := executor.MustNew(reg)
	call := bashCall("echo hi")
	call.Name = "repo_shell"
	res, err := ex.Execute(context.Background(), call)
	require.NoError(t, err)
	assert.Equal(t, "hi\n", res.Text())
	res, _ = ex.Execute(context.Background(), bashCall("echo hi"))
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeNotFound, res.Error.Code, "there is no tool named bash")

	def, err := shell.NewBash(sb, mustWorkspace(t, dir))
	require.NoError(t, err)
	assert.Equal(t, "bash", def.Spec().Name)
	assert.Equal(t, shell.DefaultBashDescription, def.Spec().Description)
	assert.Equal(t, tool.RiskHigh, def.Spec().Risk)

	_, err = shell.NewBash(sb, mustWorkspace(t, dir), shell.WithName("has space"))
	assert.Error(t, err, "the name is checked like any tool's")
}

// WithRisk sets a NewCommand tool's risk (default medium); New takes the
// spec's risk as given. WithName is NewBash's: NewCommand takes its name as
// an argument.
func TestWithRiskAndNameOnNewCommand(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	low, err := shell.NewCommand("uptime_", "Uptime", sb, []string{"true"}, shell.WithRisk(tool.RiskLow), shell.WithName("ignored"))
	require.NoError(t, err)
	assert.Equal(t, tool.RiskLow, low.Spec().Risk)
	assert.Equal(t, "uptime_", low.Spec().Name)
	def, err := shell.NewCommand("uptime_", "Uptime", sb, []string{"true"})
	require.NoError(t, err)
	assert.Equal(t, tool.RiskMedium, def.Spec().Risk)
	given, err := shell.New(tool.Spec{Name: "uptime_", Description: "Uptime", Risk: tool.RiskHigh}, sb, shell.Config{Argv: []string{"true"}}, shell.WithRisk(tool.RiskLow))
	require.NoError(t, err)
	assert.Equal(t, tool.RiskHigh, given.Spec().Risk)
}

// WithSpec adjusts the spec after the defaults (and WithName, WithRisk):
// category, tags, modes, annotations, and a timeout the executor enforces.
func TestWithSpecAdjustsTheSpec(t *testing.T) {
	dir := t.TempDir()
	sb := processEngine(t, dir)
	var before tool.Spec
	adjust := func(s *tool.Spec) {
		before = *s
		s.Category = "ops"
		s.Tags = []string{"repo", "slow"}
		s.AllowedModes = []string{tool.ModeNormal}
		s.Annotations.Title = "Repository shell"
		s.Timeout = 300 * time.Millisecond
	}
	b, err := shell.NewBash(sb, mustWorkspace(t, dir), shell.WithName("repo_shell"), shell.WithSpec(adjust))
	require.NoError(t, err)
	assert.Equal(t, "repo_shell", before.Name, "WithSpec runs after WithName")
	assert.Equal(t, tool.RiskHigh, before.Risk, "and after the defaults")
	spec := b.Spec()
	assert.Equal(t, "ops", spec.Category)
	assert.Equal(t, []string{"repo", "slow"}, spec.Tags)
	assert.Equal(t, []string{tool.ModeNormal}, spec.AllowedModes)
	assert.Equal(t, "Repository shell", spec.Annotations.Title)
	call := bashCall("sleep 10")
	call.Name = "repo_shell"
	res, took := runTool(t, b, call)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeTimeout, res.Error.Code, "%v", res.Error)
	assert.Less(t, took, 5*time.Second)

	// On NewCommand, after WithRisk: the spec function has the last word.
	c, err := shell.NewCommand("nap", "Sleep", sb, []string{"sleep", "10"}, shell.WithRisk(tool.RiskLow),
		shell.WithSpec(func(s *tool.Spec) { s.Risk = tool.RiskHigh; s.Timeout = 300 * time.Millisecond }))
	require.NoError(t, err)
	assert.Equal(t, tool.RiskHigh, c.Spec().Risk)
	res, took = runTool(t, c, tool.Call{ID: "c", Name: "nap"})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeTimeout, res.Error.Code, "%v", res.Error)
	assert.Less(t, took, 5*time.Second)
}
