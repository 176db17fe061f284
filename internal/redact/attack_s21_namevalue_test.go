package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// nameValueTexts are secrets whose name is itself a value, with the
// secret in the "value" beside it, on the next line of a text that is not
// JSON from its first byte: Kubernetes env as kubectl prints it (YAML), a
// Terraform plan, JSON in a log line, a CLI's --name and --value flags.
// Args masks {"name": "DB_PASSWORD", "value": "..."} in JSON; String let
// the same pair through when it was written as text. "Zq7" marks the
// secret.
var nameValueTexts = []struct{ name, text string }{
	{"kubernetes env", "    env:\n    - name: DB_PASSWORD\n      value: Zq7hunter2-secret\n    - name: LOG_LEVEL\n      value: debug\n"},
	{"kubernetes env, quoted", "env:\n- name: \"API_TOKEN\"\n  value: \"Zq7hunter2-secret\"\n"},
	{"terraform plan", "      + env {\n          + name  = \"DB_PASSWORD\"\n          + value = \"Zq7hunter2-secret\"\n        }\n"},
	{"JSON in a log line", "request headers: [{\"name\": \"X-Api-Key\",\n  \"value\": \"Zq7hunter2-secret\"}]\n"},
	{"key and value", "- key: client_secret\n  value: Zq7hunter2-secret\n"},
	{"flags", "az keyvault secret set --vault-name v --name DbPassword --value Zq7hunter2-secret\n"},
	{"flags over lines", "aws ssm put-parameter --name /app/prod/db_password \\\n  --value Zq7hunter2-secret --type SecureString\n"},
}

// The whole-text rule masks each value, and keeps the names and the
// values of names that say nothing.
func TestAttackS21NameThenValue(t *testing.T) {
	for _, c := range nameValueTexts {
		got := String(c.text)
		assert.NotContains(t, got, "Zq7", "%s: %q", c.name, got)
		assert.Contains(t, got, Mask, "%s: %q", c.name, got)
	}
	assert.Equal(t, "env:\n- name: DB_PASSWORD\n  value: "+Mask+"\n- name: LOG_LEVEL\n  value: debug\n",
		String("env:\n- name: DB_PASSWORD\n  value: hunter2\n- name: LOG_LEVEL\n  value: debug\n"))
}

// The streaming rule masks them at every chunk boundary.
func TestAttackS21NameThenValueStream(t *testing.T) {
	filler := strings.Repeat("listing the files of the project\n", 4)
	for _, c := range nameValueTexts {
		text := filler + c.text + "done\n"
		for i := len(filler) - 1; i <= len(filler)+len(c.text); i++ {
			if got := streamed(Stream{Mask: String, Hold: 8, Lines: true}, text[:i], text[i:]); strings.Contains(got, "Zq7") {
				t.Errorf("%s, split at %d: shown %q", c.name, i-len(filler), got)
				break
			}
		}
	}
}

// A value after a name that says nothing, or far from a secret name
// (another pair between them), stays.
func TestS21NameThenValueNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"env:\n- name: LOG_LEVEL\n  value: debug\n",
		"- name: DB_PASSWORD\n  valueFrom: vault\n",
		"- name: DB_PASSWORD\n  description: the database's\n  value_type: string\n",
		"name: password reset\ntitle: the form\nvalue: 3\n",
		"--name build --value 3\n",
		"the name password and the value of it are asked for\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}
