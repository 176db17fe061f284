package shell_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Two bash calls at once (a model's parallel tool calls): one renames the
// directory above a masked path back and forth while the other starts. The
// mask is listed by a walk before the engine mounts it; a rename in between
// had bwrap mount it on a directory it made anew where conf had been, and
// the starting command read c2/secrets/key (seen failing first: bwrap on
// the second of 40 tries, gvisor within 20). A command with something to
// mask now runs alone among the workspace's bash commands (the tries wait
// for the renaming one to end), and in it the directory above a masked
// path is a mount point, which it cannot rename.
func TestAttackS21rBashRenamesWhileAnotherStarts(t *testing.T) {
	hide := func(rel, _ string) string {
		if rel == "conf/secrets" {
			return "policy rule global.forbidden_paths[0]"
		}
		return ""
	}
	for _, name := range []string{sandbox.EngineBwrap, sandbox.EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			b, _ := maskedBash(t, name, map[string]string{"conf/secrets/key": "TOPSECRET-KEY", "conf/app.yaml": "app"}, hide)
			done := make(chan string, 1)
			go func() {
				// Renaming for 4 seconds of its own clock, however slow
				// the engine.
				res, _ := b.Run(context.Background(), bashCall(`end=$((SECONDS+4)); while [ $SECONDS -lt $end ]; do mv conf c2; mv c2 conf; done 2>/dev/null; `+
					`cat conf/secrets/key c2/secrets/key 2>/dev/null; true`))
				if res == nil {
					done <- ""
					return
				}
				done <- res.Text()
			}()
			// Starting commands while the other renames, until it ends.
			var out strings.Builder
			ended := false
			for !ended && !strings.Contains(out.String(), "TOPSECRET") {
				res, err := b.Run(context.Background(), bashCall(`cat conf/secrets/key c2/secrets/key 2>/dev/null; true`))
				if err == nil {
					out.WriteString(res.Text())
				}
				select {
				case last := <-done:
					out.WriteString(last)
					ended = true
				default:
				}
			}
			if !ended {
				out.WriteString(<-done)
			}
			assert.NotContains(t, out.String(), "TOPSECRET", "a command read what the policy hides while another renamed its directory")
		})
	}
}
