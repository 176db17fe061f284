package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "Password" in Chinese and Japanese text is followed by a full-width
// colon (密码：…, パスワード：…) or equals sign, as those languages write
// them: the names are in the rule, but only the ASCII ":" and "=" were
// read as separators, so the password after them stayed.
func TestAttackFullWidthSeparators(t *testing.T) {
	for _, in := range []string{
		"密码：hunter2abc", "您的密码：hunter2abc", "パスワード：hunter2abc", "密码＝hunter2abc",
		"用户名：bob 密码： hunter2abc", "Password：hunter2abc", "api_key＝hunter2abc",
	} {
		got := String(in)
		assert.NotContains(t, got, "hunter2abc", "%q -> %q", in, got)
		assert.Contains(t, got, Mask, "%q -> %q", in, got)
		args, err := json.Marshal(map[string]string{"text": in})
		require.NoError(t, err)
		assert.NotContains(t, string(Args(args, nil)), "hunter2abc", in)
	}
	for _, plain := range []string{"用户名：bob", "时间：10:30", "地址＝北京"} {
		assert.Equal(t, plain, String(plain))
	}
}
