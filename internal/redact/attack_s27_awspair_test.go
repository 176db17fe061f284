package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

const (
	s27AWSKeyID  = "AKIAIOSFODNN7EXAMPLE"
	s27AWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// An AWS secret access key written after its key id with no name of its
// own: the credentials CSV the IAM console hands out (a header line, then
// "user,password,AKIA...,secret"), a table, a line of two words. The key
// id was masked by its shape and the secret, 40 characters of base64
// with no prefix, kept.
func TestAttackS27AWSSecretAfterKeyID(t *testing.T) {
	for in, want := range map[string]string{
		"User name,Password,Access key ID,Secret access key\nbob,,AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n": "User name,Password,Access key ID,Secret access key\nbob,,[REDACTED],[REDACTED]\n",
		"Access key ID,Secret access key\r\nAKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\r\n":                     "Access key ID,Secret access key\r\n[REDACTED],[REDACTED]\r\n",
		s27AWSKeyID + " " + s27AWSSecret:                          Mask + " " + Mask,
		"| " + s27AWSKeyID + " | " + s27AWSSecret + " | active |": "| " + Mask + " | " + Mask + " | active |",
		s27AWSKeyID + ":" + s27AWSSecret:                          Mask + ":" + Mask,
		"ASIAIOSFODNN7EXAMPLE\t" + s27AWSSecret + "\tsession":     Mask + "\t" + Mask + "\tsession",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// A key id followed by a word that is not 40 characters of base64 keeps
// the word.
func TestS27AWSKeyIDFollowedByWordKept(t *testing.T) {
	for in, want := range map[string]string{
		s27AWSKeyID + " is the key id of bob":                            Mask + " is the key id of bob",
		s27AWSKeyID + ",active,2026-01-01":                               Mask + ",active,2026-01-01",
		s27AWSKeyID + " " + s27AWSSecret + "x":                           Mask + " " + s27AWSSecret + "x",
		s27AWSKeyID + " arn:aws:iam::123456789012:user/bob-the-deployer": Mask + " arn:aws:iam::123456789012:user/bob-the-deployer",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}
