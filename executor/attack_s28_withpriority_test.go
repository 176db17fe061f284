package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// counted is an observer (an audit trail, say) that counts the calls the
// executor refuses before the chain.
type counted struct {
	extension.Hooks
	refused *int
}

func (c counted) Refused(context.Context, *tool.Call, *tool.Spec, *tool.Result) { *c.refused++ }

// An extension re-placed by extension.WithPriority lost every method but
// Name, Priority and Wrap: an audit trail moved to another place stopped
// hearing of the calls refused before the chain (an unknown tool, bad
// arguments), so those calls went unrecorded. The executor now reaches
// the extension through the re-placement (extension.As).
func TestAttackS28ReplacedObserverHearsOfRefusals(t *testing.T) {
	reg := scRegistry(t, tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }, tool.ReadOnly()))
	n := 0
	trail := counted{Hooks: extension.Hooks{ExtName: "trail", Prio: extension.PriorityAudit}, refused: &n}
	ex, err := executor.New(reg, executor.WithExtensions(extension.WithPriority(trail, extension.PriorityLogging-50)))
	require.NoError(t, err)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "drop_tables", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "bob"}})
	require.Equal(t, tool.CodeNotFound, res.Error.Code)
	assert.Equal(t, 1, n, "the re-placed audit trail did not hear of the refused call")
}
