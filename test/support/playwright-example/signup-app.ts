// A small app under test for the Playwright example of docs/sandboxes.md: a sign-up form whose POST sends the welcome
// email through sendmock to the address typed, with no sandbox header (the address names the sandbox).

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const FORM = `<!doctype html><title>Sign up</title>
<form method="post" action="/signup"><label>Email <input id="email" name="email" type="email" required></label>
<button type="submit">Sign up</button></form>`;

export interface SignupApp {
  url: string;
  close(): Promise<void>;
}

/** Starts the app on a free port; each sign-up sends through `sendmockUrl`. */
export async function startSignupApp(sendmockUrl: string): Promise<SignupApp> {
  const server: Server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/signup") {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const email = new URLSearchParams(body).get("email") ?? "";
        void fetch(`${sendmockUrl}/send`, {
          method: "POST",
          headers: { Authorization: "Bearer app-key", "Content-Type": "application/json" },
          body: JSON.stringify({ to: email, template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),
        }).then((sent) => {
          res
            .writeHead(sent.ok ? 200 : 502, { "Content-Type": "text/html" })
            .end(sent.ok ? "<p id=done>Check your inbox</p>" : "<p id=failed>Could not send</p>");
        });
      });
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" }).end(FORM);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
