package classify

import "testing"

// TestAttackS23PipWritesWhereItIsTold: pip's --log FILE appends its log,
// the requirements as given among it, to FILE, and --report, --target,
// --prefix, --root, --src and download's and wheel's -d and -w write to
// the file or directory given: pip install --log ~/.bashrc "x'\$(cmd)'"
// appends a line with $(cmd) to ~/.bashrc. These were Warning, as pip
// install is; a write outside the working directory is Dangerous.
func TestAttackS23PipWritesWhereItIsTold(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`pip install --log ~/.bashrc x`,
		`pip --log ~/.bashrc install x`,
		`pip install --log=/etc/profile.d/x.sh x`,
		`pip install --log-file ~/.profile x`,
		`pip install --report ~/.bashrc x`,
		`pip install --target ~ x`,
		`pip install -t ~/.config/autostart x`,
		`pip install --prefix ~ x`,
		`pip install --root / x`,
		`pip download -d ~ x`,
		`pip wheel -w ~/.ssh x`,
		`pip3 install --log ~/.bashrc x`,
	})
	for _, line := range []string{
		`pip install x`,
		`pip install -r requirements.txt`,
		`pip install --target vendor x`,
		`pip install --log pip.log x`,
	} {
		if v := Classify(line); v.Level != Warning {
			t.Errorf("%q: got %s %v, want warning", line, v.Level, v.Reasons)
		}
	}
	attackSafe(t, []string{`pip list`, `pip show requests`, `pip freeze`})
}
