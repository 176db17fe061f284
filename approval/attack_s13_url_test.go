package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A url argument that is a file: URL names a local file, which a tool that
// opens URLs (a browser's navigate) reads, but the subject was the URL
// only: deny browse(/etc/**) let file:///etc/shadow, FILE:/etc/shadow and
// file://localhost/etc/%73hadow run.
func TestAttackS13FileURLIsItsPath(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("browse(/etc/**)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("browse(file:///srv/site/**)"))
	eval := func(p *Policy, u string) Action {
		args, _ := json.Marshal(map[string]string{"url": u})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "browse", Args: args}, Spec: tool.Spec{Name: "browse"}, Level: classify.Safe}).Action
	}
	for _, u := range []string{"file:///etc/shadow", "FILE:/etc/shadow", "file://localhost/etc/%73hadow", " file:///srv/../etc/shadow"} {
		assert.Equal(t, ActionRefuse, eval(deny, u), u)
	}
	assert.Equal(t, ActionAllow, eval(deny, "https://example.com/etc/shadow"), "a web path is no local file")
	assert.Equal(t, ActionAllow, eval(allow, "file:///srv/site/index.html"), "the URL as written still matches")
}

// The WHATWG URL standard (browsers, Node's fetch, a Node MCP server)
// reads an http(s) URL with no slashes, one, three or backslashes after
// the scheme as one with two: "https:evil.example/x" and
// "https:/evil.example/x" go to evil.example. Go's url.Parse reads them as
// opaque or host-less, and the subject kept them so: deny
// http_get(https://evil.example/**) let each through.
func TestAttackS13URLWithoutItsTwoSlashes(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("http_get(https://evil.example/**)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("http_get(https://docs.example/**)"))
	eval := func(p *Policy, u string) Action {
		args, _ := json.Marshal(map[string]string{"url": u})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "http_get", Args: args}, Spec: tool.Spec{Name: "http_get"}, Level: classify.Safe}).Action
	}
	for _, u := range []string{
		"https:evil.example/x",
		"HTTPS:evil.example/x",
		"https:/evil.example/x",
		"https:///evil.example/x",
		`https:\\evil.example\x`,
		`https:/\evil.example/x`,
		"https:evil.example",
	} {
		assert.Equal(t, ActionRefuse, eval(deny, u), "%s (%s)", u, canonicalURL(u))
		assert.NotEqual(t, ActionAllow, eval(allow, u), u)
	}
	assert.Equal(t, ActionAllow, eval(allow, "https:docs.example/a"), "the same place as https://docs.example/a")
	assert.Equal(t, "https://docs.example/a", canonicalURL("https:/docs.example/a"))
	assert.Equal(t, "mailto:a@evil.example", canonicalURL("mailto:a@evil.example"), "other schemes keep their form")
}

// An HTTP client reaches an IPv4 address written as one number, in hex or
// octal, or with fewer than four parts, as inet_aton and the WHATWG URL
// standard read it: curl, browsers, Python's socket.getaddrinfo and
// glibc's resolver (Go's cgo one) connect http://2130706433/ to
// 127.0.0.1, http://0x7f.1/ and http://0177.0.0.1/ too. The URL subject
// kept the host as written, so a deny rule on http://169.254.169.254/**
// (a cloud's metadata service) or on http://127.0.0.1/** let those
// spellings through.
func TestAttackS13URLWithAnIPv4AddressInAnotherForm(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("http_get(http://169.254.169.254/**)", "http_get(http://127.0.0.1/admin/**)"))
	eval := func(u string) Evaluation {
		args, _ := json.Marshal(map[string]string{"url": u})
		return deny.Evaluate(nil, &Request{Call: tool.Call{Name: "http_get", Args: args}, Spec: tool.Spec{Name: "http_get"}, Level: classify.Safe})
	}
	for _, u := range []string{
		"http://2852039166/latest/meta-data/",
		"http://0xA9FEA9FE/latest/meta-data/",
		"http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/",
		"http://0251.0376.0251.0376/latest/meta-data/",
		"http://169.254.43518/latest/meta-data/",
		"http://169.16689662/latest/meta-data/",
		"http://0251.254.169.254/latest/meta-data/",
		"http://169.254.169.254./latest/meta-data/",
		"http://2130706433/admin/x",
		"http://127.1/admin/x",
		"http://0x7f000001/admin/x",
		"http://017700000001/admin/x",
		"http://0x7f.0.0.1/admin/x",
		"http://127.0.0.01/admin/x",
		"http://[::ffff:7f00:1]/admin/x",
		"http://１２７.0.0.1/admin/x",
	} {
		if ev := eval(u); ev.Action != ActionRefuse {
			t.Errorf("deny rules let %q through: %+v (%q)", u, ev, canonicalURL(u))
		}
	}
	// Names that only look like numbers stay names.
	for u, want := range map[string]string{
		"http://169.254.169.254.example/x": "http://169.254.169.254.example/x",
		"http://1e3/x":                     "http://1e3/x",
		"http://4294967296/x":              "http://4294967296/x",
		"http://256.1.1.1/x":               "http://256.1.1.1/x",
		"http://09/x":                      "http://09/x",
		"http://1.2.3.4.5/x":               "http://1.2.3.4.5/x",
		"http://example.com/x":             "http://example.com/x",
		"http://10.0.0.1/x":                "http://10.0.0.1/x",
		"http://v1.2/x":                    "http://v1.2/x",
	} {
		assert.Equal(t, want, canonicalURL(u), u)
	}
}

// A file: URL Go's url.Parse refuses (a stray %, a space in the host) is
// still a path to a browser, which opens file:///etc/shadow%zz's
// /etc/shadow%zz or file://a b/etc/shadow's /etc/shadow: approval's own
// reading gave up on it and the deny rule let it run, while the policy,
// which cuts such a URL by hand, judged it. Both read it one way now
// (hostpath.FileURLPath).
func TestAttackFileURLGoCannotParse(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("browse(/etc/**)"))
	for _, u := range []string{"file:///etc/shadow%zz", "file://a b/etc/shadow"} {
		args, _ := json.Marshal(map[string]string{"url": u})
		ev := deny.Evaluate(nil, &Request{Call: tool.Call{Name: "browse", Args: args}, Spec: tool.Spec{Name: "browse"}, Level: classify.Safe})
		assert.Equal(t, ActionRefuse, ev.Action, u)
	}
}
