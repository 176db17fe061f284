package classify

import "testing"

// TestAttackS25PythonMPipWrites: python -m pip is pip, and pip's --log
// FILE appends to FILE, so python3 -m pip --log ~/.bashrc install x
// writes the start-up file as pip --log ~/.bashrc install x does
// (Dangerous). Seen failing first: the python forms were Warning
// ("python3 runs python3 code").
func TestAttackS25PythonMPipWrites(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`python3 -m pip --log ~/.bashrc install x`,
		`python -m pip --log=~/.profile install x`,
		`python3 -m pip install --log ~/.bashrc x`,
		`python3 -mpip --log ~/.bashrc install x`,
		`python3.12 -m pip download -d ~/.ssh x`,
		`python3 -m pip install --target ~/.config/autostart x`,
	})
}
