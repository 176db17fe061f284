package approvalgate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// A deny rule holds for a command whose name or arguments bash computes
// at run time, or that the line feeds to a shell as text, through a real
// bash tool: before, under allow_all, shell(touch *) let each of these
// run, and the file was made.
func TestDenyRuleHoldsForAComputedCommandThroughBash(t *testing.T) {
	dir := t.TempDir()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir), sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second}))
	require.NoError(t, err)
	b, err := shell.NewBash(sb, ws)
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(b))
	name := b.Spec().Name
	pol := approval.MustPolicy(approval.ModeAllowAll, approval.DenyRules(name+"(touch *)"))
	gate := approvalgate.New(fixed(approval.Approved("nobody")), approvalgate.WithPolicy(pol))
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	for _, cmd := range []string{
		"${x:-touch} pwned",
		"$(printf touch) pwned",
		`a=(touch pwned); "${a[@]}"`,
		"echo pwned | xargs touch",
		"printf 'touch pwned' | sh",
		`printf '\x74ouch pwned' | bash`,
		`printf '\x74ouch pwned' > s.sh; . ./s.sh`,
	} {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: args})
		require.Error(t, err, cmd)
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, cmd)
		_, statErr := os.Stat(filepath.Join(dir, "pwned"))
		assert.True(t, os.IsNotExist(statErr), "%q ran: the file was made", cmd)
		os.Remove(filepath.Join(dir, "pwned"))
	}
	for _, cmd := range []string{"echo touch pwned", "x=ok; echo $x; ls"} {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		_, err = ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: args})
		assert.NoError(t, err, cmd)
	}
}
