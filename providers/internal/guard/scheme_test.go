package guard_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
)

// baseConfig has the fields of a Stainless SDK's request config that
// SchemeCheck reads.
type baseConfig struct {
	BaseURL, DefaultBaseURL *url.URL
}

func TestSchemeCheck(t *testing.T) {
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		require.NoError(t, err)
		return u
	}
	check := func(cfg *baseConfig, allow bool) error {
		return guard.SchemeCheck(interface{ Apply(*baseConfig) error }(nil), allow, "x.WithInsecureHTTP()").Apply(cfg)
	}
	for _, s := range []string{"http://models.lan.test/", "HTTP://10.0.0.7:8080/", "http://[fe80::1]/", "http://localhost.evil.test/", "http://localhost./", "http://127.0.0.1.nip.io/"} {
		err := check(&baseConfig{BaseURL: parse(s)}, false)
		assert.ErrorIs(t, err, guard.ErrPlainHTTP, s)
		assert.ErrorContains(t, err, "x.WithInsecureHTTP()", s)
		assert.NoError(t, check(&baseConfig{BaseURL: parse(s)}, true), s)
		// The default base URL counts when none is set.
		assert.ErrorIs(t, check(&baseConfig{DefaultBaseURL: parse(s)}, false), guard.ErrPlainHTTP, s)
	}
	for _, s := range []string{"http://localhost:11434/v1/", "http://LOCALHOST/", "http://127.0.0.2:8000/", "http://[::1]:8080/", "http://[::ffff:127.0.0.1]/", "https://models.lan.test/"} {
		assert.NoError(t, check(&baseConfig{BaseURL: parse(s)}, false), s)
	}
	// BaseURL wins over the default.
	assert.NoError(t, check(&baseConfig{BaseURL: parse("https://a.example/"), DefaultBaseURL: parse("http://b.example/")}, false))

	type renamed struct{ Base *url.URL }
	err := guard.SchemeCheck(interface{ Apply(*renamed) error }(nil), false, "x").Apply(&renamed{})
	assert.ErrorIs(t, err, guard.ErrUnknownConfig)
}
