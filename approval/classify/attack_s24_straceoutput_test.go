package classify

import "testing"

// TestAttackS24StraceOutputToACommand: strace -o '|CMD' (or '!CMD') pipes
// the trace into CMD, which it runs with the shell (strace(1): "If the
// argument begins with '|' or '!', the rest of the argument is treated as
// a command"), so strace -o '|rm -rf ~' true runs rm -rf ~. The value was
// judged as a file named "|rm -rf ~" in the working directory (Warning),
// and --output, which strace 5.x and later take, as an unknown word.
// Seen failing first: every line below was Warning.
func TestAttackS24StraceOutputToACommand(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`strace -o '|rm -rf ~' true`,
		`strace -o '!rm -rf ~' true`,
		`strace -o'!rm -rf ~' true`,
		`strace -fo'|rm -rf ~' true`,
		`strace --output='|rm -rf ~' true`,
	})
	attackAtLeast(t, Dangerous, []string{
		`strace -o '|sh' true`,
		`strace -o "|$cmd" true`,
		`strace --output=/tmp/trace true`,
		`strace --output ~/.bashrc true`,
	})
	// A file in the working directory stays a write there.
	for _, line := range []string{`strace -o trace.txt true`, `strace --output=trace.txt true`} {
		if v := Classify(line); v.Level != Warning {
			t.Errorf("%q: got %s %v, want warning", line, v.Level, v.Reasons)
		}
	}
}
