package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With -ask the approval prompt reads the person at the terminal, not the
// scripted answers: a person who denies the edit is obeyed.
func TestAskReadsThePerson(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "agent-loop")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	cmd := exec.Command(bin, "-ask")
	cmd.Stdin = strings.NewReader("d\nnot today\n")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "→ denied: error [approval_denied]")
	assert.NotContains(t, string(out), "approval: approve")

	// Without -ask, the scripted answers approve the scripted model's edit.
	out, err = exec.Command(bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "approval: approve by alice for edit_file")
}
