package placeholder

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		escapes bool
		want    []Part
		err     string
	}{
		{"https://x/{owner}/{repo}", false, []Part{{Lit: "https://x/"}, {Name: "owner"}, {Lit: "/"}, {Name: "repo"}}, ""},
		{"--out={path}", true, []Part{{Lit: "--out="}, {Name: "path"}}, ""},
		{"{{literal}}", true, []Part{{Lit: "{literal}"}}, ""},
		{"{{literal}}", false, nil, "not a placeholder"},
		{"a}", true, nil, "no matching '{' (write {{"},
		{"{path", false, nil, "without closing it"},
		{"{a b}", true, nil, "not a placeholder"},
		{"{1..3}", true, nil, "not a placeholder"},
		{"{}", false, nil, "not a placeholder"},
		{"{é}", false, nil, "not a placeholder"},
		{"plain", false, []Part{{Lit: "plain"}}, ""},
	} {
		got, err := Parse(tc.in, tc.escapes)
		if tc.err != "" {
			require.Error(t, err, tc.in)
			assert.Contains(t, err.Error(), tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	assert.Equal(t, []string{"owner", "repo"}, Names([]Part{{Lit: "x"}, {Name: "owner"}, {Name: "repo"}}))
}
