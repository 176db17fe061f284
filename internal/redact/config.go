package redact

import (
	"regexp"
	"strings"
)

// configCommand is a package manager's or a CLI's configuration command,
// which takes a setting's name and its value as two words: git config,
// npm/yarn/pnpm config set, aws configure set, rclone config create,
// poetry and composer config, pip and conda config.
// Only flags (each with one argument at most: git -C dir config) come
// between the program and the word, so prose that names both ("git may
// not let you configure ...") is not one.
var configCommand = regexp.MustCompile(`\b(?:git|npm|yarn|pnpm|aws|rclone|poetry|pip3?|conda|composer)(?:[ \t]+-[^\s]+(?:[ \t]+[^\s-][^\s]*)?)*[ \t]+(?:config|configure)\b`)

// configHints are what a configuration command holds.
var configHints = []string{"config"}

// maskConfigCommands masks the value after each setting's name that looks
// secret in a configuration command (configCommand), to the command's
// end: "git config --global github.token VALUE", "npm config set
// //registry.npmjs.org/:_authToken VALUE", "aws configure set
// aws_secret_access_key VALUE", "rclone config create r s3
// secret_access_key VALUE". The name is judged by its last part after
// ".", ":" or "/" (github.token, not credential.helper), and poetry's
// pypi-token.REPO names a token; http-basic.REPO (poetry, composer) is
// followed by a user and the password.
func maskConfigCommands(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range configCommand.FindAllStringIndex(s, -1) {
		if m[0] < last {
			continue
		}
		end := strings.IndexAny(s[m[1]:], "|;&\n`)") // the command's end, or its quote's in prose
		if end < 0 {
			end = len(s)
		} else {
			end += m[1]
		}
		words := commandWords(s, m[1], end)
		for k := 0; k+1 < len(words); k++ {
			name := s[words[k][0]:words[k][1]]
			skip := 1 // the value is the next word
			switch {
			case strings.HasPrefix(name, "-"):
				continue
			case strings.HasPrefix(name, "http-basic."):
				skip = 2 // a user, then the password
			case strings.HasPrefix(name, "pypi-token."):
			case !LooksSecret(lastNamePart(name)):
				continue
			}
			if k+skip >= len(words) {
				break
			}
			v := words[k+skip]
			if val := s[v[0]:v[1]]; strings.HasPrefix(val, "-") || strings.HasPrefix(val, Mask) || varRef(val) || v[0] < last {
				continue
			}
			b.WriteString(s[last:v[0]])
			b.WriteString(Mask)
			last = v[1]
			k += skip
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// lastNamePart is name after its last ".", ":" or "/".
func lastNamePart(name string) string {
	return name[strings.LastIndexAny(name, ".:/")+1:]
}

// commandWords returns the spans of the words of s[from:to]: a quoted
// word's text inside its quotes, an unquoted one up to a blank.
func commandWords(s string, from, to int) [][2]int {
	var words [][2]int
	for i := from; i < to; {
		if s[i] == ' ' || s[i] == '\t' || s[i] == '\r' {
			i++
			continue
		}
		if q := s[i]; q == '\'' || q == '"' {
			k := strings.IndexByte(s[i+1:to], q)
			if k < 0 {
				k = to - i - 1
			}
			words = append(words, [2]int{i + 1, i + 1 + k})
			i += k + 2
			continue
		}
		j := i
		for j < to && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' {
			j++
		}
		words = append(words, [2]int{i, j})
		i = j
	}
	return words
}
