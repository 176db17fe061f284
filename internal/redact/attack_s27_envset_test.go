package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A secret set as an environment variable by a command that takes the
// name and the value as two words (fish's set -gx, Windows' setx,
// macOS's launchctl setenv), PowerShell's plain text made a SecureString,
// and an HTML password field's value. Each went whole into records.
func TestAttackS27EnvironmentSetters(t *testing.T) {
	for in, want := range map[string]string{
		"set -gx GITHUB_TOKEN Zq7abc123":                                     "set -gx GITHUB_TOKEN " + Mask,
		"set -Ux API_KEY 'Zq7abc 123'":                                       "set -Ux API_KEY '" + Mask + "'",
		"setx API_KEY Zq7abc123":                                             "setx API_KEY " + Mask,
		`setx DB_PASSWORD "Zq7 s3cret" /M`:                                   `setx DB_PASSWORD "` + Mask + `" /M`,
		"launchctl setenv API_TOKEN Zq7abc123":                               "launchctl setenv API_TOKEN " + Mask,
		`$pw = ConvertTo-SecureString "Zq7s3cret" -AsPlainText -Force`:       `$pw = ConvertTo-SecureString "` + Mask + `" -AsPlainText -Force`,
		`ConvertTo-SecureString -String 'Zq7s3cret' -AsPlainText -Force`:     `ConvertTo-SecureString -String '` + Mask + `' -AsPlainText -Force`,
		`<input type="password" name="pw" value="Zq7s3cret">`:                `<input type="password" name="pw" value="` + Mask + `">`,
		`<input name="login" type='password' value='Zq7s3cret' class="x" />`: `<input name="login" type='password' value='` + Mask + `' class="x" />`,
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// Setters of other names, a SecureString read from a prompt, and other
// inputs keep their values.
func TestS27EnvironmentSettersKept(t *testing.T) {
	for _, kept := range []string{
		"set -gx PATH /usr/local/bin $PATH",
		"set -gx GITHUB_TOKEN $TOKEN",
		"setx JAVA_HOME C:\\java",
		"launchctl setenv LANG en_US.UTF-8",
		`$s = Read-Host -AsSecureString`,
		`ConvertTo-SecureString $plain -AsPlainText -Force`,
		`<input type="text" name="user" value="bob">`,
		`<input type="password" name="pw" value="">`,
		"set the token and run",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
