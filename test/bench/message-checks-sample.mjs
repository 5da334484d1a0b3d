// One cold sample of the message checks, in a process of its own (the message-checks section spawns it): the import, the first check of a 100 KB message (loading the parsers and the caniemail data), then warm runs. Prints one JSON line.
// Usage: node test/bench/message-checks-sample.mjs <warm runs>

const WARM_RUNS = Number(process.argv[2] ?? 20);

/**
 * A transactional email of about `bytes` of HTML as email builders write them: a style sheet
 * with a media query, a table layout with inline styles on every cell, a link and an image with
 * alt per row, and a text part holding some of the links.
 * @param {number} bytes
 */
function email(bytes) {
  const head = [
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>',
    ".card { max-width: 560px; margin: 0 auto; border-radius: 8px; } @media (max-width: 600px) { .card { padding: 8px !important; } } a:hover { color: #1d4ed8; }",
    '</style></head><body style="margin: 0; background: #f4f5f7;">',
    '<table role="presentation" class="card" width="100%" cellpadding="0" cellspacing="0">',
  ].join("\n");
  const rows = [];
  let length = head.length;
  for (let item = 0; length < bytes - 40; item += 1) {
    const row = `<tr><td style="padding: 8px 16px; font-family: Helvetica, Arial, sans-serif; font-size: 14px; color: #1f2933; border-bottom: 1px solid #e4e7eb;"><img src="https://cdn.example.com/products/${item}.png" alt="Product ${item}" width="40" height="40" style="display: block; border: 0;"> <a href="https://shop.example.com/items/${item}" style="color: #2563eb; text-decoration: none;">Item ${item}</a> costs $${item}.99</td></tr>\n`;
    rows.push(row);
    length += row.length;
  }
  const html = `${head}\n${rows.join("")}</table></body></html>`;
  const text = `Your items:\n${Array.from({ length: 20 }, (_, item) => `Item ${item}: https://shop.example.com/items/${item}`).join("\n")}\n`;
  return { subject: "Your order", html, text };
}

const message = email(100 * 1024);
const began = performance.now();
const { checkMessage } = await import("../../dist/message-checks/index.js");
const importMs = performance.now() - began;
const firstStarted = performance.now();
const first = checkMessage(message);
const firstMs = performance.now() - firstStarted;
const warmMs = [];
for (let run = 0; run < WARM_RUNS; run += 1) {
  const started = performance.now();
  checkMessage(message);
  warmMs.push(performance.now() - started);
}
process.stdout.write(`${JSON.stringify({ bytes: Buffer.byteLength(message.html), status: first.status, importMs, firstMs, warmMs })}\n`);
