package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A private key that Kubernetes keeps base64-encoded: a kubeconfig's
// client-key-data, a TLS secret's tls.key (kubectl get secret -o yaml), a
// Helm value. The PEM block is masked as text, but encoded it is one word
// under a name that says nothing the rule knew (client-key-data, tls.key),
// so a tool that read ~/.kube/config gave the cluster's client key to the
// audit trail, the log and events. Azure's storage account key
// (account_key=, {"AccountKey": …}) was kept for the same reason. A
// certificate, encoded the same way, is not secret and stays.
func TestAttackEncodedPrivateKeysAndAccountKeys(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAhunter2secretbits\n-----END RSA PRIVATE KEY-----\n"
	enc := base64.StdEncoding.EncodeToString([]byte(pem))
	ec := base64.StdEncoding.EncodeToString([]byte("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIhunter2secretbits\n-----END EC PRIVATE KEY-----\n"))
	ssh := base64.StdEncoding.EncodeToString([]byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAhunter2\n-----END OPENSSH PRIVATE KEY-----\n"))
	for _, c := range []struct{ in, secret string }{
		{"users:\n- name: admin\n  user:\n    client-certificate-data: Q0VSVA==\n    client-key-data: " + enc + "\n", enc[40:80]},
		{"data:\n  tls.crt: Q0VSVA==\n  tls.key: " + enc + "\ntype: kubernetes.io/tls\n", enc[40:80]},
		{"key " + ec + " end", ec[40:70]},
		{`{"sshKeyB64":"` + ssh + `"}`, ssh[40:70]},
		{`BlobServiceClient(account_url=u, account_key="hunter2abcdefXYZ==")`, "hunter2abcdefXYZ"},
		{`{"AccountKey":"hunter2abcdefXYZ=="}`, "hunter2abcdefXYZ"},
		{"AccountKey=hunter2abcdefXYZ==;AccountName=x", "hunter2abcdefXYZ"},
		{`{"client_key":"hunter2abcdefXYZ"}`, "hunter2abcdefXYZ"},
	} {
		got := String(c.in)
		assert.NotContains(t, got, c.secret, "%q -> %q", c.in, got)
		assert.Contains(t, got, Mask, "%q -> %q", c.in, got)
		if strings.HasPrefix(c.in, "{") {
			assert.NotContains(t, string(Args(json.RawMessage(c.in), nil)), c.secret, c.in)
		} else {
			args, err := json.Marshal(map[string]string{"text": c.in})
			require.NoError(t, err)
			assert.NotContains(t, string(Args(args, nil)), c.secret, c.in)
		}
	}
	cert := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----\n"))
	for _, plain := range []string{"client-certificate-data: " + cert, "ca.crt: " + cert, "account_url=https://x.blob.core.windows.net"} {
		assert.Equal(t, plain, String(plain))
	}
}
