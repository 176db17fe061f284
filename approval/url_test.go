package approval

import (
	"encoding/json"
	"testing"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// TestURLSubjectOtherSpellings: the same place written another way than
// canonicalURL first knew is still the place a rule names: a port with
// leading zeros, an ideographic or full-width dot or letter in the host
// (IDNA maps them, as Go's net/http and browsers do), another spelling
// of an IPv6 address, a backslash (a browser's "/"), a "..;" segment (a
// Java server's ".."), a tab or newline inside or spaces around the URL
// (a browser drops them).
func TestURLSubjectOtherSpellings(t *testing.T) {
	deny := MustPolicy(ModeAllowAll,
		DenyRules("http_get(https://api.example.com/admin/**)", `http_get(http://\[::1\]/admin/**)`, "http_get(http://127.0.0.1/admin/**)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("http_get(https://api.example.com/docs/**)"))
	eval := func(p *Policy, u string) Action {
		args, _ := json.Marshal(map[string]string{"url": u})
		req := &Request{Call: tool.Call{ID: "c", Name: "http_get", Args: args}, Spec: tool.Spec{Name: "http_get"}, Level: classify.Safe}
		return p.Evaluate(nil, req).Action
	}
	for _, u := range []string{
		"https://api.example.com:0443/admin/x",
		"https://api．example．com/admin/x",
		"https://api。example。com/admin/x",
		"https://ＡＰＩ.example.com/admin/x",
		"http://[0:0:0:0:0:0:0:1]/admin/x",
		"http://[::0001]/admin/x",
		"http://[::ffff:127.0.0.1]/admin/x",
		"https://api.example.com/docs/..;/admin/x",
		"https://api.example.com/docs/..;x=1/admin/x",
		"https://api.example.com/docs/..\\admin/x",
		"https://api.example.com/docs/..%5cadmin/x",
		"https://api.example.com/ad\tmin/x",
		"https://api.example.com/docs/\n/../../admin/x",
		" https://api.example.com/admin/x ",
	} {
		if a := eval(deny, u); a != ActionRefuse {
			t.Errorf("deny http_get(https://api.example.com/admin/**) let %q through: %v (%q)", u, a, canonicalURL(u))
		}
		if a := eval(allow, u); a == ActionAllow {
			t.Errorf("allow http_get(https://api.example.com/docs/**) approved %q (%q)", u, canonicalURL(u))
		}
	}
	// Harmless twins keep their meaning.
	for u, want := range map[string]Action{
		"https://api.example.com/docs/a;v=1":    ActionAllow,
		"https://api.example.com:443/docs/a":    ActionAllow,
		"https://api.example.com:8443/docs/a":   ActionAsk,
		"https://api．example．com/docs/a":        ActionAllow,
		"https://api.example.com/docs/a\\..\\b": ActionAllow,
		"https://api.example.com/docs/..;/x":    ActionAsk,
		"https://api.example.com.evil/docs/a":   ActionAsk,
		"https://api.example.com/docs/%2e%2e/x": ActionAsk,
	} {
		if a := eval(allow, u); a != want {
			t.Errorf("allow http_get(https://api.example.com/docs/**) on %q: %v, want %v (%q)", u, a, want, canonicalURL(u))
		}
	}
}
