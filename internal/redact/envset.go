package redact

import (
	"regexp"
	"strings"
)

// envSetter is a command that sets an environment variable from two
// words, its name and its value: fish's set with its flags (set -gx
// NAME VALUE), Windows' setx and macOS's launchctl setenv. Group 1 is
// the name, 2 the value (quoted or a word).
var envSetter = regexp.MustCompile(`(?:^|[\s;&|(])(?:set(?:[ \t]+-[A-Za-z]+)+|setx|launchctl[ \t]+setenv)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+('[^'\r\n]*'|"[^"\r\n]*"|[^\s'"|;&]+)`)

// envSetterHints are what such a command holds.
var envSetterHints = []string{"set -", "setx", "setenv"}

// maskEnvSetters masks the value each envSetter gives a name that looks
// secret (LooksSecret; LooksSecretEnv for an upper-case name), inside its
// quotes; a variable's value ($TOKEN, cmd.exe's %TOKEN%) stays.
func maskEnvSetters(s string) string {
	var spans []span
	for _, m := range envSetter.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		vs, ve := m[4], m[5]
		if q := s[vs]; q == '\'' || q == '"' {
			vs, ve = vs+1, ve-1
		}
		v := s[vs:ve]
		if (LooksSecret(name) || isUpperName(name) && LooksSecretEnv(name)) && v != "" && !strings.HasPrefix(v, "$") && !cmdVariable(v) && !strings.HasPrefix(v, Mask) {
			spans = append(spans, span{vs, ve})
		}
	}
	return maskSpans(s, spans)
}

// cmdVariable reports whether v is one cmd.exe variable reference,
// %NAME% (setx's way to copy a variable): it holds no secret itself.
func cmdVariable(v string) bool {
	return len(v) > 2 && v[0] == '%' && v[len(v)-1] == '%' && !strings.ContainsAny(v[1:len(v)-1], "% \t")
}
