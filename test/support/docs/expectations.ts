// What a docs command prints, as its comment says it: the status, headers and JSON body expected, and where a response departs from them.

interface Expectation {
  status?: number;
  errorCode?: string;
  headers: [string, string][];
  body?: unknown;
  noResponse: boolean;
}

/** The JSON value at the start of `text`, and the prose after it. */
function leadingJson(text: string): { value: unknown; rest: string } {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (inString) {
      if (char === "\\") at += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") depth += 1;
    else if (char === "}" || char === "]") {
      depth -= 1;
      if (depth === 0) return { value: JSON.parse(text.slice(0, at + 1)) as unknown, rest: text.slice(at + 1) };
    }
  }
  throw new Error(`no whole JSON value at the start of: ${text}`);
}

export function expectationOf(result: string): Expectation {
  const expectation: Expectation = { headers: [], noResponse: false };
  if (result.startsWith("{") || result.startsWith("[")) {
    expectation.body = leadingJson(result).value;
    return expectation;
  }
  if (result.startsWith("no response")) {
    expectation.noResponse = true;
    return expectation;
  }
  const status = /^(\d{3})\b(.*)$/.exec(result) ?? /\((\d{3})\)()$/.exec(result);
  if (!status) return expectation;
  expectation.status = Number(status[1]);
  const rest = status[2] ?? "";
  expectation.errorCode = /^ `?([a-z]+(?:_[a-z]+)+)`?/.exec(rest)?.[1];
  for (const header of rest.matchAll(/[,;] ([A-Z][A-Za-z-]+): ([^\s,;]+)/g)) expectation.headers.push([header[1] ?? "", header[2] ?? ""]);
  return expectation;
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
/** Members whose value is a measurement, not a fact: any number will do. */
const MEASURED = new Set(["duration_ms", "time"]);

/** Where `actual` departs from `expected`: `…` in a string stands for any text, a date-time for any date-time. */
export function differences(expected: unknown, actual: unknown, at = ""): string[] {
  if (typeof expected === "string") {
    if (typeof actual !== "string") return [`${at || "/"}: expected a string, got ${JSON.stringify(actual)}`];
    const pattern = ISO_TIME.test(expected)
      ? ISO_TIME
      : new RegExp(
          `^${expected
            .split("…")
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join("[\\s\\S]*")}$`,
        );
    return pattern.test(actual) ? [] : [`${at || "/"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${at || "/"}: expected ${expected.length} items, got ${JSON.stringify(actual)}`];
    return expected.flatMap((item, index) => differences(item, actual[index], `${at}/${index}`));
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [`${at || "/"}: expected an object, got ${JSON.stringify(actual)}`];
    const [want, got] = [Object.keys(expected).sort(), Object.keys(actual).sort()];
    if (want.join() !== got.join()) return [`${at || "/"}: expected members ${want.join(", ")}, got ${got.join(", ")}`];
    return want.flatMap((key) => {
      const [expectedValue, actualValue] = [(expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key]];
      if (MEASURED.has(key)) return typeof actualValue === typeof expectedValue ? [] : [`${at}/${key}: expected a ${typeof expectedValue}`];
      return differences(expectedValue, actualValue, `${at}/${key}`);
    });
  }
  return Object.is(expected, actual) ? [] : [`${at || "/"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** Each JSON value of the block (jsonc: `//` lines between them), in order. */
export function jsonValues(code: string): unknown[] {
  const values: unknown[] = [];
  let text = code
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("//"))
    .join("\n")
    .trim();
  while (text !== "") {
    const { value, rest } = leadingJson(text);
    values.push(value);
    text = rest.trim();
  }
  return values;
}
