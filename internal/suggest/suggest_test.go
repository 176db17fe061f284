package suggest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/internal/suggest"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"lockdwn", "lockdown", 1}, {"héllo", "hello", 1}} {
		assert.Equal(t, c.d, suggest.Distance(c.a, c.b), "%q %q", c.a, c.b)
	}
}

func TestClosest(t *testing.T) {
	modes := []string{"normal", "alert", "degraded", "lockdown", "recovery"}
	assert.Equal(t, "lockdown", suggest.Closest("lockdwn", modes))
	assert.Equal(t, "lockdown", suggest.Closest("LOCKDOWN", modes))
	assert.Equal(t, "", suggest.Closest("kubernetes", modes))
	assert.Equal(t, "ab", suggest.Closest("a", []string{"ac", "ab"}), "ties go to the first by name")
}
