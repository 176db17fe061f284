package approval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A file system that compares names loosely (APFS and NTFS by default,
// ext4 casefold directories, ZFS with normalization, vfat's trailing
// dots) opens ~/.SSH/id_rsa as ~/.ssh/id_rsa and /ETC/passwd as
// /etc/passwd, so a Go tool reading either reaches what a deny or ask
// rule on .ssh or /etc names; the rules matched the spelling as written
// and let them run unasked. The sandbox's rules judge a name folded since
// b9b94bc; the deny and ask rules' path patterns now do too. Only the
// decision is judged (this machine's ext4 is case-sensitive): the files
// need not exist.
func TestAttackS18PathRuleSpeltAsAFoldingFileSystemOpensIt(t *testing.T) {
	tl := foldReadTool()
	judge := func(p *Policy, path string) Action {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_any", Args: args}, Spec: tl.Spec(), Level: classify.Safe}).Action
	}
	rules := []string{"read_any(**/.ssh/**)", "read_any(/etc/**)", "read_any(**/.env)", "read_any(/srv/café/**)", "read_any(/srv/me" + "nu\u0301" + "/**)"}
	deny := MustPolicy(ModeAllowAll, DenyRules(rules...))
	ask := MustPolicy(ModeAllowAll, AskRules(rules...))
	paths := []string{
		// case
		"/home/u/.SSH/id_rsa",
		"/home/u/.Ssh/id_rsa",
		"/ETC/passwd",
		"/Etc/shadow",
		"/app/.ENV",
		"/home/u/.ſsh/id_rsa", // long s folds to s
		"/SRV/CAFÉ/menu",
		// fullwidth and other compatibility forms
		"/ｅｔｃ/passwd",
		"/home/u/．ssh/id_rsa",
		"/app/．ｅｎｖ",
		// default-ignorable code points
		"/home/u/.ss\u200bh/id_rsa",
		"/e\u200dtc/passwd",
		"/app/.e\ufeffnv",
		"/home/u/.s\u00adsh/id_rsa",
		// trailing dots and spaces of a component
		"/etc./passwd",
		"/home/u/.ssh./id_rsa",
		"/home/u/.ssh /id_rsa",
		"/app/.env.",
		"/app/.env ",
		// normalisation: NFD against an NFC pattern, NFC against an NFD one
		"/srv/cafe\u0301/menu",
		"/srv/menú/today",
	}
	for _, path := range paths {
		assert.Equal(t, ActionRefuse, judge(deny, path), "deny: %q", path)
		assert.Equal(t, ActionAsk, judge(ask, path), "ask: %q", path)
	}
	// Twins: names the patterns do not name, folded or not, still run.
	for _, path := range []string{"/home/u/ssh/id_rsa", "/home/u/.sshx/id", "/etc2/passwd", "/srv/cafe/menu", "/srv/menu/today", "/app/.envrc"} {
		assert.Equal(t, ActionAllow, judge(deny, path), "deny: %q", path)
		assert.Equal(t, ActionAllow, judge(ask, path), "ask: %q", path)
	}
}

// Allow rules keep their spelling: folding them would widen what they
// approve (a rule naming /srv/public would approve /srv/PUBLIC, another
// directory on a case-sensitive file system). A name spelt another way
// is approved by none, and asked about.
func TestS18AllowRulesKeepTheirSpelling(t *testing.T) {
	tl := foldReadTool()
	p := MustPolicy(ModeAlwaysAsk, AllowRules("read_any(/srv/public/**)"))
	judge := func(path string) Action {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_any", Args: args}, Spec: tl.Spec(), Level: classify.Safe}).Action
	}
	assert.Equal(t, ActionAllow, judge("/srv/public/a"))
	for _, path := range []string{"/srv/PUBLIC/a", "/srv/public./a", "/srv/pub\u200blic/a"} {
		assert.Equal(t, ActionAsk, judge(path), "%q", path)
	}
}

func foldReadTool() tool.Tool {
	type in struct {
		Path string `json:"path" toolbelt:"path"`
	}
	return tool.Func("read_any", "Read a file", func(context.Context, in) (string, error) { return "", nil })
}
