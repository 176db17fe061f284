package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A secret's name given a heredoc (Terraform's and HCL's password =
// <<EOT, Ruby's <<~EOS): the lines up to the terminator are the value.
// Before the fix only the opener "<<EOT" was masked and the password on
// the next line was shown.
func TestAttackS23HeredocValueMasked(t *testing.T) {
	for in, want := range map[string]string{
		"password = <<EOT\nZq7secret\nEOT\n":                           "password = <<EOT\n" + Mask + "\nEOT\n",
		"  admin_password = <<-EOT\n    Zq7secret\n  EOT\nx = 1\n":     "  admin_password = <<-EOT\n    " + Mask + "\n  EOT\nx = 1\n",
		"private_key = <<EOF\nZq7line1\nZq7line2\nEOF\nname = \"a\"\n": "private_key = <<EOF\n" + Mask + "\nEOF\nname = \"a\"\n",
		"SECRET = <<~EOS\n  Zq7secret\nEOS\n":                          "SECRET = <<~EOS\n  " + Mask + "\nEOS\n",
		"token = <<'END'\nZq7secret\nEND\n":                            "token = <<'END'\n" + Mask + "\nEND\n",
		"password = <<EOT\r\nZq7secret\r\nEOT\r\n":                     "password = <<EOT\r\n" + Mask + "\r\nEOT\r\n",
		// Not closed (yet): masked to the end, as a key block with no END
		// line, so that a text cut inside it shows none of it.
		"password = <<EOT\nZq7secret\nZq7more\n": "password = <<EOT\n" + Mask,
		// A terminator word inside the body, not alone on its line, does
		// not end it.
		"password = <<EOT\nZq7a EOT Zq7b\nEOT\n": "password = <<EOT\n" + Mask + "\nEOT\n",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// A heredoc under a name that is no secret's, and one whose opener has
// text after it, are kept; the streamed rule shows what the whole-text
// rule shows, the text cut anywhere.
func TestS23HeredocKeptAndStreamed(t *testing.T) {
	for _, kept := range []string{
		"description = <<EOT\nA long text.\nEOT\n",
		"cat <<EOF > notes.txt\nhello\nEOF\n",
		"password = <<EOT\nEOT\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
	s := Stream{Mask: String, Hold: 8, Lines: true}
	text := "resource \"x\" \"y\" {\n  password = <<-EOT\n    Zq7line-one\n    Zq7line-two\n  EOT\n}\ndone\n"
	want := String(text)
	assert.NotContains(t, want, "Zq7")
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j += 7 {
			if got := streamed(s, text[:i], text[i:j], text[j:]); strings.Contains(got, "Zq7") {
				t.Fatalf("split at %d, %d: shown %q", i, j, got)
			}
		}
	}
}
