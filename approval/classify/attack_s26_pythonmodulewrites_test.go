package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS26PythonModuleWrites: modules of Python's standard library
// that python -m runs write the files their command line names:
// json.tool its second operand (python3 -m json.tool in.json ~/.bashrc
// replaces the start-up file with the JSON text in.json holds), gzip -d
// the name without .gz, zipfile and tarfile -c the archive and -e into
// the directory, cProfile and profile -o, trace --file, zipapp -o, venv
// its directories. Each is judged as a write, as a redirection is
// (Dangerous at a start-up file). Seen failing first: each was Warning
// ("python3 runs python3 code").
func TestAttackS26PythonModuleWrites(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`python3 -m json.tool in.json ~/.bashrc`,
		`python3 -m json.tool --sort-keys in.json ~/.bashrc`,
		`python3 -m json.tool --indent 2 in.json ~/.profile`,
		`python3 -m json.tool --indent=2 in.json .git/hooks/pre-commit`,
		`python -mjson.tool in.json ~/.bashrc`,
		`python3 -m json.tool - ~/.bashrc`,
		`python3 -m gzip -d ~/.bashrc.gz`,
		`python3 -m gzip ~/.ssh/x`,
		`python3 -m zipfile -c ~/.bashrc a.txt`,
		`python3 -m zipfile -e a.zip ~/.ssh`,
		`python3 -m tarfile -e a.tar ~/.config/autostart`,
		`python3 -m tarfile -c ~/.profile a.txt`,
		`python3 -m cProfile -o ~/.bashrc x.py`,
		`python3 -m profile -o ~/.bashrc x.py`,
		`python3 -m trace --count --file ~/.bashrc x.py`,
		`python3 -m zipapp src -o ~/.local/bin/tool`,
		`python3 -m venv ~/.ssh`,
	})
	// Where they write in the working directory they stay what python
	// running code is.
	for _, l := range []string{`python3 -m json.tool in.json`, `python3 -m json.tool in.json out.json`, `python3 -m gzip -d a.gz`, `python3 -m venv .venv`} {
		v := Classify(l)
		assert.Equal(t, Warning, v.Level, "%q: %v", l, v.Reasons)
	}
}
