// The calc example's `calc_scale` in the TypeScript MCP SDK (bench/run; installed into
// .tools/ts-sdk by scripts/install-test-tools.sh, run with Node 22 from .tools/node).
//
// usage: node ts_calc.mjs SDK_FOLDER stdio | node ts_calc.mjs SDK_FOLDER http PORT
//
// SDK_FOLDER is the folder holding node_modules/@modelcontextprotocol/sdk. `http` serves
// Streamable HTTP at http://127.0.0.1:PORT/mcp, stateless (a server and transport per request,
// as the SDK's stateless example does) with JSON answers.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [sdkFolder, mode, port] = process.argv.slice(2);
const sdk = (path) =>
  import(pathToFileURL(join(sdkFolder, "node_modules/@modelcontextprotocol/sdk/dist/esm", path)).href);
const { McpServer } = await sdk("server/mcp.js");
const { z } = await import(pathToFileURL(join(sdkFolder, "node_modules/zod/index.js")).href);

function calcServer() {
  const server = new McpServer({ name: "ts-sdk-calc", version: "1.32.2" });
  server.registerTool(
    "calc_scale",
    {
      title: "Scale a value",
      description: "Multiply a value by a factor",
      inputSchema: { Value: z.number(), Factor: z.number().default(1) },
      outputSchema: { result: z.number() },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ Value, Factor }) => {
      const structuredContent = { result: Value * Factor };
      return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  return server;
}

if (mode === "http") {
  const { StreamableHTTPServerTransport } = await sdk("server/streamableHttp.js");
  createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const server = calcServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }).listen(Number(port), "127.0.0.1");
} else {
  const { StdioServerTransport } = await sdk("server/stdio.js");
  await calcServer().connect(new StdioServerTransport());
}
