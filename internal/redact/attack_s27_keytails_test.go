package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The tails of ssh.com's and PuTTY's private key files without their
// first line, as "tail" prints them: the rules masked each file from its
// first line, and the key's lines went whole into records.
func TestAttackS27OtherKeyFileTails(t *testing.T) {
	for in, want := range map[string]string{
		"Zq7AAAAgQCx4pBZ9v2b2ABCDEF\nP2b2ABCDEFZq7/+==\n---- END SSH2 ENCRYPTED PRIVATE KEY ----\n":                    Mask + "\n",
		"$ tail -n 4 key.ppk\nPrivate-Lines: 2\nZq7AAAAgQCx4pBZ9v2b2\nZq7AAAAgQCx4pBZ9v2b2==\nPrivate-MAC: 0123abcd\n": "$ tail -n 4 key.ppk\nPrivate-Lines: 2\n" + Mask + "\nPrivate-MAC: 0123abcd\n",
		"Private-Lines: 1\r\nZq7AAAAgQCx4pBZ9v2b2==\r\n":                                                               "Private-Lines: 1\r\n" + Mask + "\r\n",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// Their markers alone, and a public key's lines, stay.
func TestS27OtherKeyFileTailsKept(t *testing.T) {
	for _, kept := range []string{
		"---- END SSH2 ENCRYPTED PRIVATE KEY ----\n",
		"Public-Lines: 2\nAAAAB3NzaC1yc2EAAAADAQABAAAAgQ\nAAAAB3NzaC1yc2EAAAADAQABAAAAgQ==\n",
		"Private-Lines: see below\n",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
