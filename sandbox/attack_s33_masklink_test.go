package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Spec.Mask hides names, and a file has as many names as hard links. A
// command that finds no .env yet (none to mask) makes an empty one and a
// hard link to it under a name no rule names (ln .env notes.txt, ln .env
// conf/secrets/key's sibling); the developer then puts the keys in the
// file where it is (echo KEY=... >> .env, an editor that keeps the file's
// links, as vim does), and the next command, whose masks cover .env and
// conf/secrets, reads notes.txt. The file tools refuse a file of several
// links (ErrHardLink); the masks did not.
func TestAttackS33MaskedFileThroughAHardLink(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			dir, run := s33MaskedRunner(t, eng, "**/.env", "conf/secrets")
			// The plant: neither .env nor conf/secrets is there yet.
			// And app/.env, a symlink (masked where it leads), to a file of
			// two links.
			o := run(`: > .env && ln .env notes.txt && mkdir -p conf/secrets && : > conf/secrets/key && ln conf/secrets/key key.bak &&
mkdir app && : > real.txt && ln real.txt copy.txt && ln -s ../real.txt app/.env && echo planted`)
			require.Contains(t, string(o.Stdout), "planted", "the plant failed")
			// The developer's keys, written where the files are.
			for _, p := range []string{".env", "conf/secrets/key", "app/.env"} {
				f, err := os.OpenFile(filepath.Join(dir, p), os.O_WRONLY|os.O_APPEND, 0)
				require.NoError(t, err)
				_, err = f.WriteString("MASKSECRET " + p + "\n")
				require.NoError(t, f.Close())
				require.NoError(t, err)
			}
			// An ordinary pair of links, which no rule names.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("ORDINARY\n"), 0o644))
			require.NoError(t, os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")))
			o = run(`cat .env conf/secrets/key app/.env; cat notes.txt key.bak copy.txt; cat a.txt b.txt; echo end`)
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the attack did not run")
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files through their other hard links", strings.Count(out, "MASKSECRET"))
			assert.Equal(t, 2, strings.Count(out, "ORDINARY"), "a command could not read a file of two links that no rule names")
			// The developer's editor saves .env by renaming a new file over
			// it: notes.txt, now the only link, still holds the old keys.
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".env.new"), []byte("NEW\n"), 0o644))
			require.NoError(t, os.Rename(filepath.Join(dir, ".env.new"), filepath.Join(dir, ".env")))
			o = run(`cat notes.txt key.bak; echo end`)
			out = string(o.Stdout)
			require.Contains(t, out, "end", "the attack did not run")
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files through their last hard links", strings.Count(out, "MASKSECRET"))
		})
	}
}
