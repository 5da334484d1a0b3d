// The command lines of the docs' `sh` blocks, split as a POSIX shell would, so a command runs with the arguments a reader's shell would give it.

/** Words of a command line: quotes, backslashes and $VAR as the shell reads them; an unquoted `#` starting a word begins the comment. */
export function shellWords(line: string, env: Record<string, string> = {}): { words: string[]; comment: string } {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  const variable = (at: number): { value: string; length: number } | undefined => {
    const match = /^\$(?:\{(\w+)\}|(\w+))/.exec(line.slice(at));
    if (!match) return undefined;
    const name = match[1] ?? match[2] ?? "";
    return { value: env[name] ?? process.env[name] ?? "", length: match[0].length };
  };
  for (let at = 0; at < line.length; at += 1) {
    const char = line[at] ?? "";
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word = (word ?? "") + char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && /["\\$`]/.test(line[at + 1] ?? "")) word = (word ?? "") + (line[++at] ?? "");
      else if (char === "$" && variable(at)) {
        const found = variable(at);
        word = (word ?? "") + (found?.value ?? "");
        at += (found?.length ?? 1) - 1;
      } else word = (word ?? "") + char;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "#" && word === undefined) {
      return { words, comment: line.slice(at + 1).trim() };
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (char === "\\") {
      word = (word ?? "") + (line[++at] ?? "");
    } else if (char === "$" && variable(at)) {
      const found = variable(at);
      word = (word ?? "") + (found?.value ?? "");
      at += (found?.length ?? 1) - 1;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (quote !== undefined) throw new Error(`unclosed ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return { words, comment: "" };
}

export interface Command {
  /** The command as written, continuation lines joined. */
  text: string;
  /** Its trailing comment and the comment lines after it: what it prints. */
  result: string;
  /** The comment lines after it, each without its `#`. */
  after: string[];
}

/** The commands of an `sh` block; comment lines before the first command are headings. */
export function commandsOf(code: string): Command[] {
  const commands: Command[] = [];
  const lines = code.split("\n");
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index] ?? "";
    if (line.trim() === "") continue;
    if (line.trimStart().startsWith("#")) {
      const last = commands.at(-1);
      const comment = line.trimStart().replace(/^#\s*/, "");
      if (last) {
        last.after.push(comment);
        last.result = `${last.result} ${comment}`.trim();
      }
      continue;
    }
    // A line ending in a backslash goes on, and so does one that leaves a quote open (a JSON body over two lines).
    for (;;) {
      if (line.endsWith("\\") && index + 1 < lines.length) line = `${line.slice(0, -1)} ${(lines[++index] ?? "").trim()}`;
      else if (hasOpenQuote(line) && index + 1 < lines.length) line = `${line}\n${lines[++index] ?? ""}`;
      else break;
    }
    commands.push({ text: line, result: shellWords(line).comment, after: [] });
  }
  return commands;
}

function hasOpenQuote(line: string): boolean {
  try {
    shellWords(line);
    return false;
  } catch {
    return true;
  }
}

/** Leading `NAME=value` words: the environment a command is run with. */
export function environmentOf(words: string[]): { env: Record<string, string>; rest: string[] } {
  const env: Record<string, string> = {};
  let at = 0;
  for (; at < words.length; at += 1) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(words[at] ?? "");
    if (!match) break;
    env[match[1] ?? ""] = match[2] ?? "";
  }
  return { env, rest: words.slice(at) };
}

/** `a && b` as two commands. */
export function splitOnAnd(words: string[]): string[][] {
  const parts: string[][] = [[]];
  for (const word of words) {
    if (word === "&&") parts.push([]);
    else parts.at(-1)?.push(word);
  }
  return parts;
}
