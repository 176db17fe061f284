package classify

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A line over a limit runs the commands the classifier did not judge:
// bash runs every one of them. Such a line is Blocked, so that no mode
// (allow_all runs Dangerous lines) runs what was never looked at. Before,
// ":;" 4,097 times then rm -rf ~ was Dangerous and ran under allow_all.
func TestLineOverALimitIsBlocked(t *testing.T) {
	c := Default()
	for _, line := range []string{
		strings.Repeat(":;", 4097) + "rm -rf ~",
		"rm -rf ~ #" + strings.Repeat("x", 70000),
		strings.Repeat("( ", 300) + "rm -rf ~" + strings.Repeat(" )", 300),
		strings.Repeat("eval ", 10) + "rm -rf ~",
	} {
		v := c.Classify(line)
		assert.Equal(t, Blocked, v.Level, "%.60q: %v", line, v.Reasons)
		assert.True(t, v.Incomplete, "%.60q", line)
	}
	// A line that does not parse at all is still only Dangerous: bash runs
	// none of a single line it cannot parse.
	assert.Equal(t, Dangerous, c.Classify("rm -rf ~; (((((").Level)
}

// Commands wrapped in one another thousands of times (u env nice ...) are
// judged with a bounded amount of work: each wrapper's command was judged
// with a copy of every word after it, 23 s and 3 GB for 3,000 wrappers.
func TestDeeplyWrappedCommandsAreBounded(t *testing.T) {
	line := strings.Repeat("u env nice ", 3000) + "rm -rf ~"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v := Default().Classify(line)
	runtime.ReadMemStats(&after)
	assert.Equal(t, Blocked, v.Level, "%v", v.Reasons)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "bytes allocated")
}
