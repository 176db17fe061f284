package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A host name in Unicode is looked up as its IDNA (UTS #46) form, as
// browsers, Node's fetch and Go's own net/http read it: ⓔvil.example,
// 𝐞vil.example and oﬃce.example (an ﬃ ligature) go
// to the same server as the ASCII name. Rules matched the name as
// written, so deny http_get(https://evil.example/**) let them through.
// Allow rules still see the name as written: a Unicode spelling of an
// allowed host is asked about, not approved.
func TestAttackURLHostInUnicodeIsItsIDNAForm(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("http_get(https://evil.example/**)", "http_get(https://office.example/**)"))
	eval := func(p *Policy, u string) Evaluation {
		args, _ := json.Marshal(map[string]string{"url": u})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "http_get", Args: args}, Spec: tool.Spec{Name: "http_get"}, Level: classify.Safe})
	}
	for _, u := range []string{
		"https://\u24d4vil.example/x",     // ⓔ
		"https://\U0001d41evil.example/x", // 𝐞
		"https://EVIL.EXAMPLE\u3002/x",    // ideographic full stop, already mapped
		"https://o\ufb03ce.example/x",     // oﬃce → office
		"https://evil.exampl\u1d49/x",     // modifier small e → e
	} {
		if ev := eval(deny, u); ev.Action != ActionRefuse {
			t.Errorf("deny rules let %q through: %+v", u, ev)
		}
	}
	// An allow rule approves the ASCII name, not a Unicode spelling of it.
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("http_get(https://docs.example/**)"))
	assert.Equal(t, ActionAllow, eval(allow, "https://docs.example/a").Action)
	assert.NotEqual(t, ActionAllow, eval(allow, "https://\u24d3ocs.example/a").Action)
	// A name IDNA refuses, and a plain one, are unchanged.
	assert.Equal(t, ActionAllow, eval(deny, "https://example.org/a").Action)
}
