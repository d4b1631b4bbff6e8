// The official TypeScript MCP SDK as a client of `postbag mcp`, for test_mcp.py:
//   node sdk_client.mjs SDK_DIR '["postbag", "mcp"]' '[["join", {}, {"threadId": "..."}], ...]'
// connects over stdio (the server inherits this process's environment), lists the tools,
// makes each call in turn, and prints one JSON object: what the server said and returned.
const [sdk, server, calls] = process.argv.slice(2);
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/dist/esm/client/stdio.js`);
const [command, ...args] = JSON.parse(server);
const client = new Client({ name: "postbag-tests", version: "0" });
await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" }));
const said = {
  server: client.getServerVersion(),
  instructions: client.getInstructions(),
  tools: (await client.listTools()).tools,
  calls: [],
};
for (const [name, args, meta] of JSON.parse(calls)) {
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  try {
    said.calls.push(await client.callTool(params));
  } catch (error) {
    said.calls.push({ error: { code: error.code, message: error.message } });
  }
}
await client.close();
console.log(JSON.stringify(said));
