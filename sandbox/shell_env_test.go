package sandbox

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack on b87f3ec: a bwrap run's command is started by /bin/sh (the
// run's first process, `(exec "$@")`), and so is a landlock run's when
// this process is root. A shell imports only the environment variables
// whose names are shell names and hands only those on: Spec.Env's
// "my-var=1" and "a.b=2" reached the command under the process engine and
// (before b87f3ec) bwrap, and now silently did not. The run refuses such a
// name (ErrInvalidSpec, naming the entry) rather than run without it.
func TestAttackShellStartedRunKeepsOrRefusesSpecEnv(t *testing.T) {
	names := []string{EngineBwrap}
	if os.Geteuid() == 0 {
		names = append(names, EngineLandlock)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			for _, kv := range []string{"my-var=1", "a.b=2", "1X=3"} {
				out, err := sb.Run(context.Background(), Spec{Argv: []string{"env"}, Env: []string{"OK_1=y", kv}})
				if err == nil {
					require.NotNil(t, out)
					got := strings.Split(string(out.Stdout), "\n")
					assert.Contains(t, got, "OK_1=y", "the run's environment: %q", out.Stdout)
					assert.Contains(t, got, kv, "Spec.Env %q neither reached the command nor was refused", kv)
					continue
				}
				assert.True(t, errors.Is(err, ErrInvalidSpec), "%v", err)
				assert.Contains(t, err.Error(), "Spec.Env[1]")
				assert.Contains(t, err.Error(), strings.Split(kv, "=")[0])
			}
			// A shell name passes, in any case, with any value.
			out, err := sb.Run(context.Background(), Spec{Argv: []string{"env"}, Env: []string{"_lower_Case9=a b\nc=d"}})
			require.NoError(t, err)
			assert.Contains(t, string(out.Stdout), "_lower_Case9=a b\nc=d\n")
		})
	}
}
