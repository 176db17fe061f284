// The TypeScript SDK's client against a toolbelt MCP server over stdio:
// node ts-client.mjs <server command> [args...]. Prints one JSON object:
// the tool names and the text of a read_file call.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "ts-interop", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const { tools } = await client.listTools();
const res = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
const text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
console.log(JSON.stringify({ tools: tools.map((t) => t.name), text, isError: res.isError ?? false }));
await client.close();
