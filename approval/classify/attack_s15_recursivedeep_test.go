package classify

import "testing"

// TestAttackRecursiveReadOfNestedSecrets: a recursive read from a
// directory was judged by the secret files directly in it (and a home by
// its hidden ones), so one whose secret files are nested deeper was Safe:
// grep -r x ~/.local reads ~/.local/share/keyrings/* and
// ~/.local/share/fish/fish_history, grep -r x ~/.mozilla a profile's
// logins.json and cookies.sqlite, grep -r x ~/.config/google-chrome and
// ~/Library its Cookies and Login Data, rg x /run/user podman's
// containers/auth.json, grep -r x ~/.cache huggingface's token; as grep -r
// x ~/.ssh (Warning) reads ~/.ssh/id_rsa. A home's directory that holds
// none of them stays Safe.
func TestAttackRecursiveReadOfNestedSecrets(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`grep -r x ~/.local`,
		`rg x ~/.local/share`,
		`grep -r x $HOME/.local/share/keyrings/..`,
		`find ~/.local -type f -exec cat {} +`,
		`grep -r x ~/.mozilla`,
		`grep -r x ~/.mozilla/firefox`,
		`grep -r x ~/.thunderbird`,
		`grep -rF sk- ~/.config/google-chrome`,
		`rg x ~/.config/chromium`,
		`grep -r pass ~/Library`,
		`grep -r pass ~/Library/Application\ Support`,
		`grep -r x ~/.var`,
		`grep -r x ~/snap`,
		`rg x /run/user`,
		`grep -r x /run/user/1000`,
		`grep -r hf_ ~/.cache`,
		`grep -r x /home/u/.local`,
		`grep -r x /root/.mozilla`,
		`cd ~/.local && grep -r x .`,
	})
	attackSafe(t, []string{
		`grep -r x ~/go/src/example.com/p`,
		`grep -r x ~/.cargo/registry/src`,
		`rg x ~/.rustup/toolchains`,
		`grep -r x ~/.local/lib/python3.12`,
		`grep -r x src`,
		`grep -r x /usr/share`,
	})
}
