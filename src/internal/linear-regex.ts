/**
 * A linear-time matcher for the regular-expression subset model-supplied JSON Schemas may use
 * (`pattern`, `propertyNames.pattern`): a Thompson NFA run as a Pike VM, so a test costs at
 * most (program size × input length) steps, whatever the pattern. `^(a|a)*$` is as cheap as `^a*$`.
 *
 * Syntax and meaning are those of a JavaScript `RegExp` with the `u` flag (what JSON Schema
 * validators use), for: literals, `.`, `^`, `$`, `\b`, `\B`, classes `[...]` / `[^...]` with
 * ranges, `\d \D \w \W \s \S`, `\t \n \v \f \r \0 \cX \xHH \uHHHH \u{H...}`, escaped syntax
 * characters, groups `(...)`, `(?:...)`, `(?<name>...)`, alternation, and the quantifiers
 * `* + ? {n} {n,} {n,m}` (greedy or lazy: the same for a yes/no test). Not supported, and
 * reported as such: backreferences, lookahead and lookbehind, `\p{...}` property escapes, and
 * counted repetition that makes the program longer than {@link MAX_PROGRAM}.
 */

/** Most instructions a compiled pattern may have (counted repetition is unrolled). */
export const MAX_PROGRAM = 2_000;
/** Largest count in `{n}`, `{n,}` and `{n,m}`. */
const MAX_COUNT = 1_000;

type CharTest = (code: number) => boolean;
type Node =
  | { t: "char"; test: CharTest }
  | { t: "seq"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number }
  | { t: "assert"; kind: "start" | "end" | "word" | "nonword" };

type Inst =
  | { op: "char"; test: CharTest }
  | { op: "split"; a: number; b: number }
  | { op: "jmp"; to: number }
  | { op: "assert"; kind: "start" | "end" | "word" | "nonword" }
  | { op: "match" };

/** A compiled pattern. `test` returns `undefined` when `budget.steps` runs out before an answer. */
export interface LinearRegex {
  readonly source: string;
  test(input: string, budget: { steps: number }): boolean | undefined;
}

/** A pattern outside the supported subset, or not a valid pattern. */
export class RegexSubsetError extends Error {
  override name = "RegexSubsetError";
}

const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
const isDigit: CharTest = (c) => c >= 0x30 && c <= 0x39;
const isWord: CharTest = (c) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const SPACES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);
const isSpace: CharTest = (c) => SPACES.has(c) || (c >= 0x2000 && c <= 0x200a);
const not =
  (test: CharTest): CharTest =>
  (c) =>
    !test(c);
const SYNTAX = new Set("^$\\.*+?()[]{}|/".split(""));

class Parser {
  private i = 0;
  private readonly chars: string[];
  constructor(source: string) {
    this.chars = Array.from(source);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.chars.length) throw new RegexSubsetError(`unmatched ")" at ${this.i}`);
    return node;
  }

  private peek(): string | undefined {
    return this.chars[this.i];
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.i++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek()) {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { t: "seq", items };
  }

  private quantified(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const counted = this.counted();
      if (!counted) throw new RegexSubsetError(`lone "{" at ${this.i} (escape it as \\{)`);
      [min, max] = counted;
    } else return atom;
    if (atom.t === "assert") throw new RegexSubsetError(`nothing to repeat at ${this.i}`);
    if (c !== "{") this.i++;
    if (this.peek() === "?") this.i++; // lazy: same answer for a test
    if (this.peek() === "*" || this.peek() === "+" || this.peek() === "?" || this.peek() === "{")
      throw new RegexSubsetError(`nothing to repeat at ${this.i}`);
    return { t: "rep", node: atom, min, max };
  }

  /** `{n}`, `{n,}`, `{n,m}` at the cursor (consumed), or undefined. */
  private counted(): [number, number] | undefined {
    const rest = this.chars.slice(this.i, this.i + 24).join("");
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!m) return undefined;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
    if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT))
      throw new RegexSubsetError(`repetition count over ${MAX_COUNT} in "${m[0]}"`);
    if (max < min) throw new RegexSubsetError(`numbers out of order in "${m[0]}"`);
    this.i += m[0].length;
    return [min, max];
  }

  private atom(): Node {
    const c = this.chars[this.i++]!;
    switch (c) {
      case ".":
        return { t: "char", test: (code) => !isLineTerminator(code) };
      case "^":
        return { t: "assert", kind: "start" };
      case "$":
        return { t: "assert", kind: "end" };
      case "(":
        return this.group();
      case "[":
        return { t: "char", test: this.charClass() };
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
        throw new RegexSubsetError(`nothing to repeat at ${this.i - 1}`);
      case "{":
      case "}":
      case "]":
        throw new RegexSubsetError(`lone "${c}" at ${this.i - 1} (escape it)`);
      default: {
        const code = c.codePointAt(0)!;
        return { t: "char", test: (x) => x === code };
      }
    }
  }

  private group(): Node {
    if (this.peek() === "?") {
      const next = this.chars[this.i + 1];
      if (next === ":") this.i += 2;
      else if (next === "<" && this.chars[this.i + 2] !== "=" && this.chars[this.i + 2] !== "!") {
        const close = this.chars.indexOf(">", this.i);
        if (close < 0) throw new RegexSubsetError("unterminated group name");
        this.i = close + 1;
      } else throw new RegexSubsetError("lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported");
    }
    const inner = this.alternation();
    if (this.chars[this.i++] !== ")") throw new RegexSubsetError('unterminated group: missing ")"');
    return inner;
  }

  /** A single-character escape inside or outside a class; `inClass` changes `\b` and `\-`. */
  private escapeTest(inClass: boolean): CharTest | "word" | "nonword" {
    const c = this.chars[this.i++];
    if (c === undefined) throw new RegexSubsetError("pattern ends with a lone backslash");
    const code =
      (n: number): CharTest =>
      (x) =>
        x === n;
    switch (c) {
      case "d":
        return isDigit;
      case "D":
        return not(isDigit);
      case "w":
        return isWord;
      case "W":
        return not(isWord);
      case "s":
        return isSpace;
      case "S":
        return not(isSpace);
      case "b":
        return inClass ? code(0x08) : "word";
      case "B":
        if (inClass) throw new RegexSubsetError("\\B is not valid in a class");
        return "nonword";
      case "t":
        return code(0x09);
      case "n":
        return code(0x0a);
      case "v":
        return code(0x0b);
      case "f":
        return code(0x0c);
      case "r":
        return code(0x0d);
      case "0":
        if (isDigit(this.peek()?.codePointAt(0) ?? -1)) throw new RegexSubsetError("octal escapes are not supported");
        return code(0);
      case "c": {
        const letter = this.chars[this.i++] ?? "";
        if (!/^[A-Za-z]$/.test(letter)) throw new RegexSubsetError("invalid \\c escape");
        return code(letter.codePointAt(0)! % 32);
      }
      case "x": {
        const hex = this.chars.slice(this.i, this.i + 2).join("");
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new RegexSubsetError("invalid \\x escape");
        this.i += 2;
        return code(parseInt(hex, 16));
      }
      case "u": {
        if (this.peek() === "{") {
          const close = this.chars.indexOf("}", this.i);
          const hex = close < 0 ? "" : this.chars.slice(this.i + 1, close).join("");
          if (!/^[0-9A-Fa-f]{1,6}$/.test(hex) || parseInt(hex, 16) > 0x10ffff)
            throw new RegexSubsetError("invalid \\u{...} escape");
          this.i = close + 1;
          return code(parseInt(hex, 16));
        }
        const hex = this.chars.slice(this.i, this.i + 4).join("");
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw new RegexSubsetError("invalid \\u escape");
        this.i += 4;
        return code(parseInt(hex, 16));
      }
      case "p":
      case "P":
        throw new RegexSubsetError("unicode property escapes (\\p{...}) are not supported");
      case "k":
        throw new RegexSubsetError("backreferences are not supported");
      default:
        if (c >= "1" && c <= "9") throw new RegexSubsetError("backreferences are not supported");
        if (SYNTAX.has(c) || (inClass && c === "-")) return code(c.codePointAt(0)!);
        throw new RegexSubsetError(`invalid escape "\\${c}"`);
    }
  }

  private escape(): Node {
    const test = this.escapeTest(false);
    if (test === "word" || test === "nonword") return { t: "assert", kind: test };
    return { t: "char", test };
  }

  private charClass(): CharTest {
    const negated = this.peek() === "^";
    if (negated) this.i++;
    const tests: CharTest[] = [];
    const single = (): { test: CharTest; code: number | undefined } => {
      const c = this.chars[this.i++];
      if (c === undefined) throw new RegexSubsetError('unterminated class: missing "]"');
      if (c !== "\\") {
        const code = c.codePointAt(0)!;
        return { test: (x) => x === code, code };
      }
      const before = this.i;
      const test = this.escapeTest(true) as CharTest;
      // Recover the code point of a one-character escape, for ranges like [\x00-\x1f].
      const probe = this.chars.slice(before - 1, this.i).join("");
      let code: number | undefined;
      for (const candidate of probeCodes(probe)) if (test(candidate)) code = candidate;
      return { test, code: /^\\[dDwWsS]$/.test(probe) ? undefined : code };
    };
    while (this.peek() !== "]") {
      if (this.peek() === undefined) throw new RegexSubsetError('unterminated class: missing "]"');
      const from = single();
      if (this.peek() === "-" && this.chars[this.i + 1] !== "]" && this.chars[this.i + 1] !== undefined) {
        this.i++;
        const to = single();
        if (from.code === undefined || to.code === undefined) throw new RegexSubsetError("invalid range in class");
        if (to.code < from.code) throw new RegexSubsetError("range out of order in class");
        const [lo, hi] = [from.code, to.code];
        tests.push((x) => x >= lo && x <= hi);
      } else tests.push(from.test);
    }
    this.i++;
    const inside: CharTest = (x) => tests.some((test) => test(x));
    return negated ? not(inside) : inside;
  }
}

/** The code point a one-character escape source stands for, as candidates to probe. */
function probeCodes(source: string): number[] {
  const m = /^\\(?:x([0-9A-Fa-f]{2})|u\{([0-9A-Fa-f]+)\}|u([0-9A-Fa-f]{4})|c([A-Za-z]))$/.exec(source);
  if (m) {
    const hex = m[1] ?? m[2] ?? m[3];
    return [hex !== undefined ? parseInt(hex, 16) : m[4]!.codePointAt(0)! % 32];
  }
  const simple: Record<string, number> = { "\\t": 9, "\\n": 10, "\\v": 11, "\\f": 12, "\\r": 13, "\\0": 0, "\\b": 8 };
  if (source in simple) return [simple[source]!];
  return source.length === 2 ? [source.codePointAt(1)!] : [];
}

class Compiler {
  readonly program: Inst[] = [];

  private emit(inst: Inst): number {
    if (this.program.length >= MAX_PROGRAM)
      throw new RegexSubsetError(`pattern too large: over ${MAX_PROGRAM} instructions once repetition is unrolled`);
    this.program.push(inst);
    return this.program.length - 1;
  }

  compile(node: Node): void {
    switch (node.t) {
      case "char":
        this.emit({ op: "char", test: node.test });
        return;
      case "assert":
        this.emit({ op: "assert", kind: node.kind });
        return;
      case "seq":
        for (const item of node.items) this.compile(item);
        return;
      case "alt": {
        const jumps: number[] = [];
        node.items.forEach((item, index) => {
          if (index < node.items.length - 1) {
            const split = this.emit({ op: "split", a: 0, b: 0 });
            (this.program[split] as { a: number }).a = split + 1;
            this.compile(item);
            jumps.push(this.emit({ op: "jmp", to: 0 }));
            (this.program[split] as { b: number }).b = this.program.length;
          } else this.compile(item);
        });
        for (const jump of jumps) (this.program[jump] as { to: number }).to = this.program.length;
        return;
      }
      case "rep": {
        for (let k = 0; k < node.min; k++) this.compile(node.node);
        if (node.max === Infinity) {
          const split = this.emit({ op: "split", a: 0, b: 0 });
          (this.program[split] as { a: number }).a = split + 1;
          this.compile(node.node);
          this.emit({ op: "jmp", to: split });
          (this.program[split] as { b: number }).b = this.program.length;
          return;
        }
        const splits: number[] = [];
        for (let k = node.min; k < node.max; k++) {
          const split = this.emit({ op: "split", a: 0, b: 0 });
          (this.program[split] as { a: number }).a = split + 1;
          splits.push(split);
          this.compile(node.node);
        }
        for (const split of splits) (this.program[split] as { b: number }).b = this.program.length;
        return;
      }
    }
  }
}

/**
 * Compiles a pattern of the supported subset. Throws {@link RegexSubsetError} (saying what is not
 * supported) for anything else.
 */
export function compileLinearRegex(source: string): LinearRegex {
  const compiler = new Compiler();
  compiler.compile(new Parser(source).parse());
  compiler.program.push({ op: "match" });
  const program = compiler.program;
  return { source, test: (input, budget) => run(program, input, budget) };
}

/** Unanchored search, as `RegExp.prototype.test`: true when the pattern matches anywhere. */
function run(program: Inst[], input: string, budget: { steps: number }): boolean | undefined {
  const size = program.length;
  const waiting = new Int32Array(size); // char instructions to test against the code point at `at`
  const carried = new Int32Array(size); // threads that got past the previous code point
  let carriedCount = 0;
  const mark = new Int32Array(size).fill(-1);
  const stack = new Int32Array(size * 2 + 2);
  let generation = -1;
  let previous = -1; // code point before the cursor, -1 at the start
  let matched = false;

  /** Follows jumps, splits and assertions from `pc`; collects the char instructions reached. */
  const addThread = (count: number, pc: number, at: number, code: number): number => {
    let top = 0;
    stack[top++] = pc;
    while (top > 0) {
      const p = stack[--top]!;
      if (mark[p] === generation) continue;
      mark[p] = generation;
      if (--budget.steps < 0) return -1;
      const inst = program[p]!;
      switch (inst.op) {
        case "jmp":
          stack[top++] = inst.to;
          break;
        case "split":
          stack[top++] = inst.b;
          stack[top++] = inst.a;
          break;
        case "assert": {
          let ok: boolean;
          if (inst.kind === "start") ok = at === 0;
          else if (inst.kind === "end") ok = at === input.length;
          else {
            const boundary = (previous >= 0 && isWord(previous)) !== (code >= 0 && isWord(code));
            ok = inst.kind === "word" ? boundary : !boundary;
          }
          if (ok) stack[top++] = p + 1;
          break;
        }
        case "match":
          matched = true;
          return count;
        default:
          waiting[count++] = p;
      }
    }
    return count;
  };

  for (let at = 0; ;) {
    const code = at < input.length ? input.codePointAt(at)! : -1;
    generation++;
    let count = 0;
    for (let k = 0; k < carriedCount && !matched; k++) {
      count = addThread(count, carried[k]!, at, code);
      if (count < 0) return undefined;
    }
    // A new attempt starts at every position (unanchored search).
    if (!matched) count = addThread(count, 0, at, code);
    if (count < 0) return undefined;
    if (matched) return true;
    if (code < 0) return false;
    let stepped = 0;
    for (let k = 0; k < count; k++) {
      const inst = program[waiting[k]!] as { op: "char"; test: CharTest };
      if (inst.test(code)) carried[stepped++] = waiting[k]! + 1;
    }
    carriedCount = stepped;
    previous = code;
    at += code > 0xffff ? 2 : 1;
  }
}
