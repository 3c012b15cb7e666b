// Walks a scan's whole life through cwac-operator's MCP server with the
// official MCP TypeScript client, over stdio or streamable HTTP, and prints
// what it saw as one JSON object on the last line of stdout.
//
//   node client.mjs stdio   (MCP_COMMAND, MCP_ARGS as a JSON array)
//   node client.mjs http    (MCP_URL, MCP_TOKEN: the bearer token)
//   SCAN_URL: the site to scan.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const mode = process.argv[2];
const transport =
  mode === "stdio"
    ? new StdioClientTransport({
        command: process.env.MCP_COMMAND,
        args: JSON.parse(process.env.MCP_ARGS || "[]"),
        env: process.env,
        stderr: "inherit",
      })
    : new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
        requestInit: { headers: { Authorization: "Bearer " + (process.env.MCP_TOKEN || "") } },
      });

const obs = { mode };
if (mode === "http") {
  // Without the token, the server refuses before anything else.
  const anonymous = new Client({ name: "cwac-operator-e2e-anonymous", version: "1.0.0" });
  try {
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL)));
    obs.anonymous = "connected";
  } catch (e) {
    obs.anonymous = String(e && e.message ? e.message : e);
  }
}

const client = new Client({ name: "cwac-operator-e2e", version: "1.0.0" });
await client.connect(transport);
obs.server = client.getServerVersion();

async function call(name, args) {
  try {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) return { error: r.content.map((c) => c.text).join("") };
    return { ok: r.structuredContent };
  } catch (e) {
    return { thrown: String(e && e.message ? e.message : e) };
  }
}

const { tools } = await client.listTools();
obs.tools = tools.map((t) => ({
  name: t.name,
  readOnly: Boolean(t.annotations && t.annotations.readOnlyHint),
  hasInputSchema: Boolean(t.inputSchema),
  hasOutputSchema: Boolean(t.outputSchema),
}));

obs.noUrls = await call("cwac_scan", { urls: [] });
obs.badUrl = await call("cwac_scan", { urls: ["file:///etc/passwd"] });
obs.metadata = await call("cwac_scan", { urls: ["http://169.254.169.254/latest/meta-data/"] });
obs.unknownPlugin = await call("cwac_scan", { urls: [process.env.SCAN_URL], plugins: { html_validation: true } });
obs.badMaxLinks = await call("cwac_scan", { urls: [process.env.SCAN_URL], max_links_per_domain: -1 });
obs.oversized = await call("cwac_scan", { urls: ["https://a.example/" + "x".repeat(2 * 1024 * 1024)] });

obs.scan = await call("cwac_scan", {
  urls: [process.env.SCAN_URL],
  audit_name: "e2e-" + mode,
  plugins: ["axe_core_audit", "reflow_audit", "focus_indicator_audit"],
  viewport_sizes: { width: 1280, height: 800 },
  max_links_per_domain: 10,
  // CWAC skips http:// sites unless told otherwise.
  ...(process.env.SCAN_URL.startsWith("http://") ? { only_allow_https: false } : {}),
});
const id = obs.scan.ok && obs.scan.ok.scan_id;
obs.statuses = [];
obs.earlyResults = await call("cwac_get_results", { scan_id: id });
const deadline = Date.now() + 90_000;
let status;
while (Date.now() < deadline) {
  status = await call("cwac_scan_status", { scan_id: id });
  const s = status.ok ? status.ok.status : "error";
  if (obs.statuses[obs.statuses.length - 1] !== s) obs.statuses.push(s);
  if (s === "complete" || s === "failed" || s === "error") break;
  await new Promise((r) => setTimeout(r, 200));
}
obs.finalStatus = status;
obs.results = await call("cwac_get_results", { scan_id: id, audit_type: "axe_core_audit", impact: "critical", limit: 3 });
obs.summary = await call("cwac_get_summary", { scan_id: id });
obs.recomputedSummary = await call("cwac_get_summary", { scan_id: id, recompute: true });
obs.list = await call("cwac_list_scans", {});
obs.report = await call("cwac_generate_report", { scan_id: id });
obs.traversalAuditType = await call("cwac_get_results", { scan_id: id, audit_type: "../../etc/passwd" });
obs.traversalScanId = await call("cwac_get_summary", { scan_id: "../../../etc" });
obs.unknownScan = await call("cwac_scan_status", { scan_id: "no-such-scan" });

await client.close();
console.log(JSON.stringify(obs));
