// Asks a SpamAssassin spamd (the SPAMC protocol over TCP) for a message's score and the rules it hit: the `spam` check.

import net from "node:net";

/** What spamd said of a message. */
export interface SpamReport {
  score: number;
  /** The score from which spamd calls it spam (its `required_score`, 5.0 by default). */
  threshold: number;
  isSpam: boolean;
  /** Each rule hit, with its points and its description. */
  rules: { name: string; score: number; description: string }[];
}

/** spamd's answer is the report of one message: a few KB. More is not spamd. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** `host:port` (or `[v6]:port`) as the `spamd` setting writes it. */
function addressOf(spamd: string): { host: string; port: number } {
  const at = spamd.lastIndexOf(":");
  return { host: spamd.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(spamd.slice(at + 1)) };
}

/**
 * The rule table of a REPORT: ` pts rule name   description`, a line per rule, its description
 * going on over the lines that follow, indented.
 */
export function parseRules(report: string): SpamReport["rules"] {
  const rules: SpamReport["rules"] = [];
  const table = report.split(/^-{3,}[ -]+$/m)[1] ?? "";
  for (const line of table.split(/\r?\n/)) {
    const rule = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
    if (rule) rules.push({ score: Number(rule[1]), name: rule[2] ?? "", description: (rule[3] ?? "").trim() });
    else if (/^\s{5,}\S/.test(line) && rules.length > 0) {
      const last = rules[rules.length - 1];
      if (last) last.description = `${last.description} ${line.trim()}`;
    }
  }
  return rules;
}

/** The parts of spamd's answer: its status line, its headers and the report after them. */
export function parseAnswer(answer: string): SpamReport {
  const [head = "", ...rest] = answer.split("\r\n\r\n");
  const [status = "", ...headers] = head.split("\r\n");
  if (!/^SPAMD\/\d+\.\d+ 0 /.test(status)) throw new Error(`spamd refused the check: ${status.slice(0, 200) || "(no answer)"}`);
  const spam = headers.map((line) => /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(line)).find((match) => match !== null);
  if (!spam) throw new Error("spamd answered without its Spam: header");
  return {
    isSpam: /^(true|yes)$/i.test(spam[1] ?? ""),
    score: Number(spam[2]),
    threshold: Number(spam[3]),
    rules: parseRules(rest.join("\r\n\r\n")),
  };
}

/** spamd's REPORT of `message` (a whole RFC 5322 message), or a rejection in words: not reachable, too slow, not spamd. */
export function askSpamd(spamd: string, message: string, timeoutMs: number): Promise<SpamReport> {
  const { host, port } = addressOf(spamd);
  return new Promise((resolve, reject) => {
    const body = Buffer.from(message, "utf8");
    const chunks: Buffer[] = [];
    let received = 0;
    const socket = net.connect({ host, port });
    const fail = (why: string): void => {
      socket.destroy();
      reject(new Error(why));
    };
    socket.setTimeout(timeoutMs, () => {
      fail(`spamd at ${spamd} did not answer within ${String(timeoutMs)} ms (spamd_timeout_ms)`);
    });
    socket.on("error", (error) => {
      fail(`spamd at ${spamd} is not reachable: ${error.message}`);
    });
    socket.on("connect", () => {
      socket.write(`REPORT SPAMC/1.5\r\nContent-length: ${String(body.length)}\r\n\r\n`);
      socket.end(body);
    });
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_ANSWER_BYTES) fail(`spamd at ${spamd} answered more than ${String(MAX_ANSWER_BYTES)} bytes: not spamd`);
      else chunks.push(chunk);
    });
    socket.on("end", () => {
      try {
        resolve(parseAnswer(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error instanceof Error ? new Error(`spamd at ${spamd}: ${error.message}`) : new Error(String(error)));
      }
      socket.destroy();
    });
  });
}
