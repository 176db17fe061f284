package classify

import "testing"

// TestAttackCredentialStoresNotOnTheList: the token stores of coding
// agents (Claude Code's ~/.claude/.credentials.json and ~/.claude.json,
// Codex's ~/.codex/auth.json, Gemini CLI's ~/.gemini/oauth_creds.json,
// GitHub Copilot's hosts.json and apps.json), git's credential store in
// its XDG place (~/.config/git/credentials, as ~/.git-credentials is),
// podman's and skopeo's registry logins (containers/auth.json, as
// ~/.docker/config.json is), an age key for sops, and the token files of
// common cloud and deployment tools (gcloud's access_tokens.db,
// DigitalOcean, Pulumi, Databricks, Kaggle, Fly, Vercel, Netlify,
// Wrangler, Stripe, Supabase, ngrok, Subversion's saved passwords, pass's
// store) were Safe to print, as cat ~/.aws/credentials (Warning) is not.
// A directory of them (cat ~/.codex/*) is judged so too.
func TestAttackCredentialStoresNotOnTheList(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat ~/.claude/.credentials.json`,
		`cat ~/.claude.json`,
		`cat ~/.codex/auth.json`,
		`cat ~/.codex/*`,
		`cat ~/.gemini/oauth_creds.json`,
		`cat ~/.config/github-copilot/hosts.json`,
		`cat ~/.config/github-copilot/apps.json`,
		`cat ~/.config/git/credentials`,
		`cat $HOME/.config/git/credentials`,
		`cat ~/.config/containers/auth.json`,
		`cat /run/user/1000/containers/auth.json`,
		`cat "$XDG_RUNTIME_DIR/containers/auth.json"`,
		`cat ~/.config/sops/age/keys.txt`,
		`cat ~/.config/gcloud/access_tokens.db`,
		`cat ~/.config/doctl/config.yaml`,
		`cat ~/.pulumi/credentials.json`,
		`cat ~/.databrickscfg`,
		`cat ~/.kaggle/kaggle.json`,
		`cat ~/.fly/config.yml`,
		`cat ~/.local/share/com.vercel.cli/auth.json`,
		`cat ~/.config/netlify/config.json`,
		`cat ~/.config/.wrangler/config/default.toml`,
		`cat ~/.wrangler/config/default.toml`,
		`cat ~/.config/stripe/config.toml`,
		`cat ~/.supabase/access-token`,
		`cat ~/.config/ngrok/ngrok.yml`,
		`cat ~/.ngrok2/ngrok.yml`,
		`cat ~/.subversion/auth/svn.simple/5671adf2865e267db74f09ba6f872c28`,
		`cat ~/.password-store/github.gpg`,
		`cd ~/.codex && cat auth.json`,
		`grep -r token ~/.config/github-copilot`,
	})
	attackSafe(t, []string{
		`cat ~/.config/git/attributes`,
		`cat ~/.config/git/ignore`,
		`cat ~/.claude/settings.json`,
		`cat ~/.codex/config.toml`,
		`cat auth.go`,
		`cat config.yml`,
		`cat README.md`,
	})
}
