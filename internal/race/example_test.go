package race_test

import (
	"fmt"

	"github.com/toolbelt-go/toolbelt/internal/race"
)

// Skip allocation assertions under the race detector, which allocates.
func Example() {
	if race.Enabled {
		fmt.Println("allocation counts are not meaningful")
		return
	}
	fmt.Println("allocation counts are meaningful")
}
