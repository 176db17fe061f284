package proctest_test

import (
	"fmt"
	"os/exec"

	"github.com/toolbelt-go/toolbelt/internal/proctest"
)

// A process started and waited for leaves nothing below this one.
func Example() {
	before, _ := proctest.Processes("")
	if err := exec.Command("true").Run(); err != nil {
		fmt.Println(err)
	}
	after, _ := proctest.Processes("")
	fmt.Println(len(after) - len(before))
	// Output: 0
}
