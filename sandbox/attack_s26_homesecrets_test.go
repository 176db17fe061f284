package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// DefaultHomeSecrets left out stores that hold tokens in plain files: a
// browser profile's cookies and saved logins, Hugging Face's token, the
// tokens npm-published CLIs keep in ~/.config/configstore (firebase-tools),
// Cloudflare's wrangler, Oracle's and Hetzner's CLIs, 1Password's CLI,
// Composer's, pip's and Bundler's registry credentials, NuGet's, Stripe's
// CLI, Supabase's, Netlify's, Vercel's, ngrok's, Sentry's, GitLab's CLI,
// and Slack's and Discord's desktop sessions: a command printed each (seen
// failing first). They are masked now, as the others are.
func TestAttackS26CommandReadsMoreHomeCredentials(t *testing.T) {
	requireRoot(t)     // hostDir is on the root, which the sandbox shows, only for root
	home := hostDir(t) // on the host's root, which the sandbox shows (its /tmp is its own)
	stores := []string{
		".mozilla/firefox/p.default/cookies.sqlite",
		".config/google-chrome/Default/Cookies",
		".config/chromium/Default/Login Data",
		".config/BraveSoftware/Brave-Browser/Default/Cookies",
		".cache/huggingface/token",
		".huggingface/token",
		".config/configstore/firebase-tools.json",
		".wrangler/config/default.toml",
		".config/.wrangler/config/default.toml",
		".oci/config",
		".config/hcloud/cli.toml",
		".config/op/config",
		".composer/auth.json",
		".config/composer/auth.json",
		".config/pip/pip.conf",
		".pip/pip.conf",
		".bundle/config",
		".nuget/NuGet/NuGet.Config",
		".config/stripe/config.toml",
		".supabase/access-token",
		".config/netlify/config.json",
		".local/share/com.vercel.cli/auth.json",
		".config/ngrok/ngrok.yml",
		".sentryclirc",
		".config/glab-cli/config.yml",
		".config/Slack/Cookies",
		".config/discord/Local Storage/leveldb/000003.log",
	}
	for _, p := range stores {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte("HOMESECRET "+p+"\n"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(home, "project"), 0o777))
	t.Setenv("HOME", home)
	ws := filepath.Join(home, "project")
	script := `cd "$1" && for p in "$@"; do [ "$p" = "$1" ] || cat "$p" 2>/dev/null; done; echo end`
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(ws)), script, append([]string{home}, stores...)...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			for _, line := range strings.Split(string(o.Stdout), "\n") {
				assert.NotContains(t, line, "HOMESECRET", "a command read a credential store of the home")
			}
		})
	}
}
