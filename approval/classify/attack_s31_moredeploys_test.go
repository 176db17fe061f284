package classify

import (
	"testing"
)

// TestAttackS31CloudDeploysUploadTheWorkspace: the deploy commands of
// hosting platforms upload the workspace (.env among its files) and run
// it in the cloud, as gcloud run deploy --source and gcloud builds submit
// do (Dangerous). They were unknown commands (Warning).
func TestAttackS31CloudDeploysUploadTheWorkspace(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`firebase deploy`,
		`firebase deploy --only hosting`,
		`vercel`,
		`vercel --prod`,
		`vercel deploy --prebuilt`,
		`netlify deploy --prod`,
		`fly deploy`,
		`flyctl deploy --remote-only`,
		`wrangler deploy`,
		`wrangler publish`,
		`wrangler pages deploy .`,
		`railway up`,
		`surge .`,
		`sam deploy --guided`,
		`cdk deploy`,
		`serverless deploy`,
		`sls deploy`,
		`amplify publish`,
		`cf push app`,
		`eb deploy`,
		`az webapp up --name x`,
		`az webapp deploy --src-path x.zip`,
		`az functionapp deployment source config-zip --src x.zip -g g -n n`,
		`aws lambda update-function-code --function-name x --zip-file fileb://x.zip`,
		`kamal deploy`,
	})
	attackExactly(t, Warning, []string{
		`firebase emulators:start`,
		`vercel env ls`,
		`netlify status`,
		`fly status`,
		`wrangler dev`,
		`railway status`,
		`sam build`,
		`cdk synth`,
		`cf apps`,
		`eb status`,
		`az webapp list`,
		`aws lambda list-functions`,
		`kamal app logs`,
	})
}

// TestAttackS31FileSendersAndTunnels: programs that send a file to
// whoever holds a code (croc, wormhole, ffsend, onionshare), upload one
// to a release or snippet (glab, tea), serve the
// workspace (miniserve, caddy file-server, updog) or expose a
// local port to the internet (ngrok, cloudflared tunnel, tailscale
// funnel) let files' contents leave the machine, as curl -T FILE URL and
// python3 -m http.server do (Dangerous). They were Warning.
func TestAttackS31FileSendersAndTunnels(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`croc send notes.txt`,
		`wormhole send notes.txt`,
		`ffsend upload notes.txt`,
		`onionshare-cli notes.txt`,
		`glab snippet create notes.txt`,
		`glab release upload v1 notes.txt`,
		`glab release create v1 notes.txt`,
		`tea release create --asset notes.txt`,
		`npx http-server .`,
		`miniserve .`,
		`caddy file-server`,
		`updog`,
		`ngrok http 8000`,
		`cloudflared tunnel --url http://localhost:8000`,
		`tailscale funnel 8000`,
		`tailscale serve 8000`,
	})
	attackExactly(t, Warning, []string{
		`hugo serve`,
		`croc --version`,
		`glab mr list`,
		`glab release list`,
		`caddy run`,
		`ngrok config check`,
		`cloudflared tunnel list`,
		`tailscale status`,
	})
}
