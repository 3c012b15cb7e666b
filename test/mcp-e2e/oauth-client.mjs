// The official MCP TypeScript client signing in with OAuth, as an AI
// client does: its first connection is refused with the server's protected
// resource metadata, the SDK discovers the provider from it, and the user
// signs in (this script plays the browser: it follows the provider's
// redirects and fills its login form); the SDK then exchanges the code
// (PKCE, the resource indicator) and connects with the access token.
// Prints one line of JSON: what it saw.
//
// Environment: MCP_URL, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET,
// OAUTH_REDIRECT, OAUTH_EMAIL, OAUTH_PASSWORD; MCP_CALLS (optional).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const url = new URL(env("MCP_URL"));
const redirect = env("OAUTH_REDIRECT");

// The client's own storage, in memory for one run.
const provider = {
  saved: {},
  pending: undefined,
  get redirectUrl() { return redirect; },
  get clientMetadata() {
    return { client_name: "cwac-operator e2e", redirect_uris: [redirect], grant_types: ["authorization_code"],
      response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" };
  },
  // Registered at the provider beforehand (no dynamic registration).
  clientInformation() { return { client_id: env("OAUTH_CLIENT_ID"), client_secret: env("OAUTH_CLIENT_SECRET") }; },
  tokens() { return this.saved.tokens; },
  saveTokens(t) { this.saved.tokens = t; },
  saveCodeVerifier(v) { this.saved.verifier = v; },
  codeVerifier() { return this.saved.verifier; },
  redirectToAuthorization(u) { this.pending = u; },
};

// signIn plays the user's browser from the authorization URL to the
// client's redirect, and returns the code it carries.
async function signIn(start) {
  let next = new URL(start);
  for (let i = 0; i < 10; i++) {
    let res;
    if (next.pathname === "/login") {
      const form = new URLSearchParams({ authRequestID: next.searchParams.get("authRequestID"),
        email: env("OAUTH_EMAIL"), password: env("OAUTH_PASSWORD") });
      res = await fetch(new URL("/login", next), { method: "POST", body: form, redirect: "manual" });
    } else {
      res = await fetch(next, { redirect: "manual" });
    }
    const loc = res.headers.get("location");
    if (!loc) throw new Error(`${next}: ${res.status} without a redirect`);
    next = new URL(loc, next);
    if (next.href.startsWith(redirect)) {
      return next.searchParams.get("code");
    }
  }
  throw new Error("the sign-in did not reach the redirect");
}

const obs = {};
let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
let client = new Client({ name: "cwac-oauth-e2e", version: "1.0.0" });
try {
  await client.connect(transport);
  obs.first = "connected without signing in";
} catch (e) {
  obs.first = e instanceof UnauthorizedError ? "unauthorized" : `error: ${e}`;
}
obs.asked_to_sign_in = provider.pending !== undefined;
if (provider.pending) {
  obs.authorization_host = provider.pending.host;
  obs.resource_indicator = provider.pending.searchParams.get("resource");
  const code = await signIn(provider.pending);
  await transport.finishAuth(code);
  const payload = provider.saved.tokens.access_token.split(".")[1];
  obs.audience = JSON.parse(Buffer.from(payload, "base64url").toString()).aud;
  transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  client = new Client({ name: "cwac-oauth-e2e", version: "1.0.0" });
  await client.connect(transport);
  obs.tools = (await client.listTools()).tools.map((t) => t.name);
  const r = await client.callTool({ name: "cwac_list_scans", arguments: {} });
  obs.list_scans = { is_error: !!r.isError, text: r.content?.[0]?.text ?? "" };
  // MCP_CALLS: more calls to make, [{name, arguments}], each observed in order.
  obs.calls = [];
  for (const call of JSON.parse(process.env.MCP_CALLS ?? "[]")) {
    const c = await client.callTool(call);
    obs.calls.push({ name: call.name, is_error: !!c.isError, text: c.content?.[0]?.text ?? "" });
  }
  await client.close();
}
console.log(JSON.stringify(obs));
