package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The WHATWG URL standard (browsers, Node's fetch, a Node MCP server)
// percent-decodes an http(s) URL's host and maps it as IDNA does, which
// drops a soft hyphen (U+00AD): new URL("http://%31%36%39.254.169.254/")
// and "http://169.254.169\u00ad.254/" go to 169.254.169.254, and
// "https://%65vil.example/" to evil.example. url.Parse refuses a
// percent-encoded ASCII host, and canonicalURL kept such a URL as written,
// so deny rules on the metadata service's address or on a host let them
// through.
func TestReviewS13URLHostPercentEncodedOrIgnoredChars(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("http_get(http://169.254.169.254/**)", "http_get(https://evil.example/**)"))
	eval := func(u string) Evaluation {
		args, _ := json.Marshal(map[string]string{"url": u})
		return deny.Evaluate(nil, &Request{Call: tool.Call{Name: "http_get", Args: args}, Spec: tool.Spec{Name: "http_get"}, Level: classify.Safe})
	}
	for _, u := range []string{
		"http://%31%36%39.254.169.254/latest/meta-data/",
		"http://169.254.169.%32%35%34/latest/meta-data/",
		"http://%32%38%35%32%30%33%39%31%36%36/latest/meta-data/",
		"http://169.254.169\u00ad.254/latest/meta-data/",
		"http://169.254.169.254\u200b/latest/meta-data/",
		"https://%65vil.example/x",
		"https://%45VIL.example/x",
		"https://evil\u00ad.example/x",
		"https://user@%65vil.example:443/x",
	} {
		if ev := eval(u); ev.Action != ActionRefuse {
			t.Errorf("deny rules let %q through: %+v (%q)", u, ev, canonicalURL(u))
		}
	}
	// A percent sign that decodes to no host a client connects to stays as
	// written; a plain URL is unchanged.
	assert.Equal(t, "https://docs.example/a", canonicalURL("https://docs.example/a"))
	assert.Equal(t, "https://%2Fx/a", canonicalURL("https://%2Fx/a"))
}
