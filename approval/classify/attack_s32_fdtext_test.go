package classify

import (
	"testing"
)

// TestAttackS32ShellReadsADescriptorsText: a here-string or here-document
// the line opens on a descriptor (exec 3<<<'rm -rf ~') that a shell then
// reads its code from (sh <&3) runs that text: judged as that code, as
// sh <<< 'rm -rf ~' is. It was Warning.
func TestAttackS32ShellReadsADescriptorsText(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`exec 3<<<'rm -rf ~'; sh <&3`,
		"exec 4<<'EOF'\nrm -rf ~\nEOF\nbash <&4",
		`exec 3<<<'rm -rf ~'; bash -s <&3`,
	})
	attackExactly(t, Warning, []string{
		`exec 3<<<'ls'; sh <&3`,
		`sh <&3`,
	})
}
