package classify

import (
	"testing"
)

// TestAttackS33DenoServesFiles: deno running a file server from npm or
// JSR (npm:http-server, npm:serve, jsr:@std/http/file-server) with read
// and network permissions serves a directory on the network, as npx
// http-server and python3 -m http.server -d ~ do (Dangerous). They were
// Warning: deno judged an npm: package as the command it is only with
// the permissions to write or run programs, and a jsr: one never. JSR's
// file server is judged by the directory it serves, as npx serve is
// (the working directory or dist stay Warning, as
// TestAttackS28DenoRemoteWithPermissions wants). A server deno may not
// read files with, another package, and deno's own commands stay as
// they were.
func TestAttackS33DenoServesFiles(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`deno run --allow-read --allow-net npm:http-server ~`,
		`deno run -R -N npm:http-server ~`,
		`deno run -RN npm:http-server@14 ~ -p 8080`,
		`deno run --allow-net --allow-read=/ npm:http-server /`,
		`deno run --allow-read --allow-net npm:serve ~`,
		`deno run -A jsr:@std/http/file-server ~`,
		`deno run -A jsr:@std/http@1.0.0/file-server ~`,
		`deno run --allow-net --allow-read jsr:@std/http/file-server ~`,
		`cd ~ && deno run -NR jsr:@std/http/file-server`,
		`deno run -A npm:http-server ~`,
		`deno run --allow-net --allow-read https://deno.land/std/http/file_server.ts ~`,
		`npx http-server ~`,
		`python3 -m http.server -d ~`,
	})
	attackExactly(t, Warning, []string{
		`deno run --allow-net npm:http-server ~`,
		`deno run npm:http-server ~`,
		`deno run --allow-read --allow-net npm:serve dist`,
		`deno run --allow-read --allow-net npm:cowsay hi`,
		`deno run --allow-net jsr:@std/http/file-server ~`,
		`deno run -NR jsr:@std/http/file-server`,
		`deno run -A jsr:@std/http/file-server dist`,
		`deno run -A jsr:@std/fmt`,
		`deno task dev`,
		`deno run main.ts`,
	})
}
