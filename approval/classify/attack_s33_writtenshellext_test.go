package classify

import (
	"testing"
)

// TestAttackS33InterpreterRunsWrittenDotSh: a script the line wrote and
// an interpreter runs was judged by the interpreter's code rules unless
// its name ends in .sh (.bash, .zsh, ...), so that shell text run by
// python3 (echo 'rm -rf ~' > a.sh; python3 a.sh), which python3 cannot
// run, stays Warning (classify_test wants it). But the interpreter reads
// any name: python code written to a.sh (echo 'import shutil;
// shutil.rmtree("/")' > a.sh && python3 a.sh) runs as x.py's does, and
// was Warning. A .sh script whose text is no shell code is judged by the
// interpreter's code rules now; shell text stays as it was.
func TestAttackS33InterpreterRunsWrittenDotSh(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`echo 'import shutil; shutil.rmtree("/")' > a.sh && python3 a.sh`,
		`printf 'import os\nos.system("id")\n' > a.sh && python3 a.sh`,
		`echo 'require("child_process").execSync("rm -rf ~")' > x.sh && node x.sh`,
		`echo 'import shutil; shutil.rmtree("/")' > x.py && python3 x.py`,
	})
	attackExactly(t, Warning, []string{
		`echo 'rm -rf ~' > a.sh && python3 a.sh`,
		`echo 'rm -rf ~' >> a.sh; python3 a.sh`,
		`echo 'rm -rf ~' > x.sh && node x.sh`,
		`echo 'print(1)' > a.sh && python3 a.sh`,
		`python3 a.sh`,
	})
}
