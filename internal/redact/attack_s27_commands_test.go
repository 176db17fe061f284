package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Secrets a command line holds in a place no flag names: a configuration
// command's name and value (git config, npm/yarn config set, aws
// configure set, rclone config create, poetry config), a password piped
// into a program that reads it from stdin, and clients' positional or
// short-flag passwords. Each went whole into records.
func TestAttackS27CommandSecrets(t *testing.T) {
	for in, want := range map[string]string{
		"git config --global github.token abc123def456":                                    "git config --global github.token " + Mask,
		"git -C repo config github.token abc123def456":                                     "git -C repo config github.token " + Mask,
		"yarn config set npmAuthToken abc123def456":                                        "yarn config set npmAuthToken " + Mask,
		"npm config set //registry.npmjs.org/:_authToken abc123def456":                     "npm config set //registry.npmjs.org/:_authToken " + Mask,
		"aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "aws configure set aws_secret_access_key " + Mask,
		"rclone config create r s3 secret_access_key Zq7s3cret region us-east-1":           "rclone config create r s3 secret_access_key " + Mask + " region us-east-1",
		"poetry config pypi-token.pypi pypi-Zq7abc123":                                     "poetry config pypi-token.pypi " + Mask,
		"poetry config http-basic.foo bob Zq7s3cret":                                       "poetry config http-basic.foo bob " + Mask,
		"echo 'Zq7s3cret' | docker login -u bob --password-stdin ghcr.io":                  "echo '" + Mask + "' | docker login -u bob --password-stdin ghcr.io",
		"printf '%s' Zq7s3cret | helm registry login -u bob --password-stdin r":            "printf '%s' " + Mask + " | helm registry login -u bob --password-stdin r",
		"echo Zq7s3cret | sudo -S apt update":                                              "echo " + Mask + " | sudo -S apt update",
		"sudo -S <<< Zq7s3cret apt update":                                                 "sudo -S <<< " + Mask + " apt update",
		"echo 'bob:Zq7s3cret' | chpasswd":                                                  "echo '" + Mask + "' | chpasswd",
		"openssl enc -aes-256-cbc -k Zq7s3cret -in f":                                      "openssl enc -aes-256-cbc -k " + Mask + " -in f",
		"wpa_passphrase homewifi Zq7s3cret":                                                "wpa_passphrase homewifi " + Mask,
		"mongosh -u admin -p Zq7s3cret --authenticationDatabase admin":                     "mongosh -u admin -p " + Mask + " --authenticationDatabase admin",
		"mongodump -u admin -p Zq7s3cret":                                                  "mongodump -u admin -p " + Mask,
		"lftp -u bob,Zq7s3cret ftp.example.com":                                            "lftp -u bob," + Mask + " ftp.example.com",
		"http -a bob:Zq7s3cret GET api.example.com":                                        "http -a bob:" + Mask + " GET api.example.com",
		"gh secret set API_KEY --body Zq7abc123":                                           "gh secret set API_KEY --body " + Mask,
		"az keyvault secret set --vault-name v --name db --value Zq7s3cret":                "az keyvault secret set --vault-name v --name db --value " + Mask,
		"aws ssm put-parameter --name /db/pw --value Zq7s3cret --type SecureString":        "aws ssm put-parameter --name /db/pw --value " + Mask + " --type SecureString",
		"net user bob Zq7s3cret /add":                                                      "net user bob " + Mask + " /add",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// Commands of the same programs with nothing secret keep their words.
func TestS27CommandsKept(t *testing.T) {
	for _, kept := range []string{
		"git config --global user.name bob",
		"git config credential.helper store",
		"git config --get remote.origin.url",
		"npm config set registry https://registry.npmjs.org/",
		"aws configure set region us-east-1",
		"echo $CR_PAT | docker login ghcr.io -u bob --password-stdin",
		`echo "$TOKEN" | docker login -u bob --password-stdin`,
		"cat pw.txt | docker login -u bob --password-stdin",
		"echo hello world",
		"echo done | tee log.txt",
		"sudo -S apt update",
		"openssl rand -hex 32",
		"openssl x509 -in c.pem -noout -text",
		"mongosh -u admin -p --authenticationDatabase admin",
		"see https://example.com and ls -a foo:bar",
		"http GET api.example.com",
		"net user bob",
		"net user bob * /add",
		"gh secret list",
		// Prose naming the programs (from npm's and git's own docs).
		"running git may not allow you to configure the file where the username and/or password are stored.",
		"errors will show `npm config fix` in the instructions, which will have their auth config fixed.",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
