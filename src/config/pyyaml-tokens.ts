// The token scanners of PyYAML's scanner.py (directives, anchors, tags, block, quoted and plain
// scalars), kept to what decides where a token ends and whether PyYAML raises: the values are not
// built (the yaml package gives them). Same order of checks and same messages as PyYAML.
import { BLANKZ, BREAKS, BREAKZ, SPACEZ, isIn, isWordChar, pyRepr, PyYamlError, Reader } from './pyyaml-reader.js';

export interface Token {
  id: string; // PyYAML's token id: '<scalar>', '<block end>', '[', '?', …
  start: number;
  end: number;
  value?: string; // an anchor's or alias's name; a directive's name; a tag's handle
  extra?: string; // a directive's value (YAML major version, TAG handle); a tag's suffix
  prefix?: string; // a TAG directive's prefix
  plain?: boolean;
}

const HEX = '0123456789ABCDEFabcdef';
const ESCAPES = '0abt\tnvfre "\\/N_LP';
const ESCAPE_CODES: Record<string, number> = { x: 2, u: 4, U: 8 };
const URI_CHARS = /^[0-9A-Za-z\-;/?:@&=+$,_.!~*'()[\]%]$/;

export class TokenScanner extends Reader {
  flowLevel = 0;
  indent = -1;
  allowSimpleKey = true;

  protected fail(context: string | null, contextOffset: number | null, problem: string, offset = this.index): never {
    throw new PyYamlError(context, contextOffset, problem, offset);
  }

  protected token(id: string, start: number, more: Partial<Token> = {}): Token {
    return { id, start, end: this.index, ...more };
  }

  scanDirective(): Token {
    const start = this.index;
    const ctx = 'while scanning a directive';
    this.forward();
    const name = this.word(ctx, start, SPACEZ);
    let extra: string | undefined;
    let prefix: string | undefined;
    if (name === 'YAML') {
      while (this.peek() === ' ') this.forward();
      extra = this.directiveNumber(start);
      if (this.peek() !== '.') this.fail(ctx, start, `expected a digit or '.', but found ${pyRepr(this.peek())}`);
      this.forward();
      this.directiveNumber(start);
      if (!isIn(this.peek(), SPACEZ))
        this.fail(ctx, start, `expected a digit or ' ', but found ${pyRepr(this.peek())}`);
    } else if (name === 'TAG') {
      while (this.peek() === ' ') this.forward();
      extra = this.tagHandle('directive', start);
      if (this.peek() !== ' ') this.fail(ctx, start, `expected ' ', but found ${pyRepr(this.peek())}`);
      while (this.peek() === ' ') this.forward();
      prefix = this.tagUri('directive', start);
      if (!isIn(this.peek(), SPACEZ)) this.fail(ctx, start, `expected ' ', but found ${pyRepr(this.peek())}`);
    } else while (!isIn(this.peek(), BREAKZ)) this.forward();
    const tok = this.token('<directive>', start, { value: name, extra, prefix });
    this.ignoredLine(ctx, start);
    return tok;
  }

  private directiveNumber(start: number): string {
    if (!/^[0-9]$/.test(this.peek()))
      this.fail('while scanning a directive', start, `expected a digit, but found ${pyRepr(this.peek())}`);
    let n = 0;
    while (/^[0-9]$/.test(this.peek(n))) n++;
    const v = String(parseInt(this.prefix(n), 10));
    this.forward(n);
    return v;
  }

  /** The rest of a directive's or block scalar header's line: spaces, a comment, a line break. */
  private ignoredLine(ctx: string, start: number): void {
    while (this.peek() === ' ') this.forward();
    if (this.peek() === '#') while (!isIn(this.peek(), BREAKZ)) this.forward();
    if (!isIn(this.peek(), BREAKZ))
      this.fail(ctx, start, `expected a comment or a line break, but found ${pyRepr(this.peek())}`);
    this.scanLineBreak();
  }

  /** A directive's or an anchor's name: word characters, then one of `after` (PyYAML says the
   *  same thing when either fails). */
  private word(ctx: string, start: number, after: string): string {
    let n = 0;
    while (isWordChar(this.peek(n))) n++;
    if (!n) this.fail(ctx, start, `expected alphabetic or numeric character, but found ${pyRepr(this.peek(n))}`);
    const name = this.prefix(n);
    this.forward(n);
    if (!isIn(this.peek(), after))
      this.fail(ctx, start, `expected alphabetic or numeric character, but found ${pyRepr(this.peek())}`);
    return name;
  }

  scanAnchor(): Token {
    const start = this.index;
    const alias = this.peek() === '*';
    const ctx = `while scanning an ${alias ? 'alias' : 'anchor'}`;
    this.forward();
    const name = this.word(ctx, start, BLANKZ + '?:,]}%@`');
    return this.token(alias ? '<alias>' : '<anchor>', start, { value: name });
  }

  scanTag(): Token {
    const start = this.index;
    let ch = this.peek(1);
    let handle: string | undefined;
    let suffix = '!';
    if (ch === '<') {
      this.forward(2);
      suffix = this.tagUri('tag', start);
      if (this.peek() !== '>')
        this.fail('while parsing a tag', start, `expected '>', but found ${pyRepr(this.peek())}`);
      this.forward();
    } else if (isIn(ch, BLANKZ)) this.forward();
    else {
      let n = 1;
      let useHandle = false;
      while (!isIn(ch, SPACEZ)) {
        if (ch === '!') {
          useHandle = true;
          break;
        }
        ch = this.peek(++n);
      }
      if (useHandle) handle = this.tagHandle('tag', start);
      else {
        handle = '!';
        this.forward();
      }
      suffix = this.tagUri('tag', start);
    }
    if (!isIn(this.peek(), SPACEZ))
      this.fail('while scanning a tag', start, `expected ' ', but found ${pyRepr(this.peek())}`);
    return this.token('<tag>', start, { value: handle, extra: suffix });
  }

  private tagHandle(name: string, start: number): string {
    if (this.peek() !== '!')
      this.fail(`while scanning a ${name}`, start, `expected '!', but found ${pyRepr(this.peek())}`);
    let n = 1;
    let ch = this.peek(n);
    if (ch !== ' ') {
      while (isWordChar(ch)) ch = this.peek(++n);
      if (ch !== '!') {
        this.forward(n);
        this.fail(`while scanning a ${name}`, start, `expected '!', but found ${pyRepr(ch)}`);
      }
      n++;
    }
    const v = this.prefix(n);
    this.forward(n);
    return v;
  }

  /** The URI's text, %-escapes decoded (a tag's suffix or a TAG directive's prefix). */
  private tagUri(name: string, start: number): string {
    let out = '';
    for (let ch = this.peek(); URI_CHARS.test(ch); ch = this.peek()) {
      if (ch === '%') {
        const mark = this.index;
        const codes: number[] = [];
        while (this.peek() === '%') {
          this.forward();
          for (let k = 0; k < 2; k++)
            if (!isIn(this.peek(k), HEX))
              this.fail(
                `while scanning a ${name}`,
                start,
                `expected URI escape sequence of 2 hexadecimal numbers, but found ${pyRepr(this.peek(k))}`,
              );
          codes.push(parseInt(this.prefix(2), 16));
          this.forward(2);
        }
        try {
          out += new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(codes));
        } catch {
          this.fail(`while scanning a ${name}`, start, "'utf-8' codec can't decode bytes", mark);
        }
      } else {
        out += ch;
        this.forward();
      }
    }
    if (!out) this.fail(`while parsing a ${name}`, start, `expected URI, but found ${pyRepr(this.peek())}`);
    return out;
  }

  scanBlockScalar(): Token {
    const start = this.index;
    const ctx = 'while scanning a block scalar';
    this.forward();
    let increment: number | null = null;
    const digit = () => {
      if (!/^[0-9]$/.test(this.peek())) return false;
      increment = Number(this.peek());
      if (increment === 0) this.fail(ctx, start, 'expected indentation indicator in the range 1-9, but found 0');
      this.forward();
      return true;
    };
    if (this.peek() === '+' || this.peek() === '-') {
      this.forward();
      digit();
    } else if (digit() && (this.peek() === '+' || this.peek() === '-')) this.forward();
    if (!isIn(this.peek(), SPACEZ))
      this.fail(ctx, start, `expected chomping or indentation indicators, but found ${pyRepr(this.peek())}`);
    this.ignoredLine(ctx, start);
    const minIndent = Math.max(this.indent + 1, 1);
    let indent: number;
    let end = this.index;
    if (increment === null) {
      let maxIndent = 0;
      while (isIn(this.peek(), ' \r\n\x85\u2028\u2029')) {
        if (this.peek() !== ' ') {
          this.scanLineBreak();
          end = this.index;
        } else {
          this.forward();
          maxIndent = Math.max(maxIndent, this.column);
        }
      }
      indent = Math.max(minIndent, maxIndent);
    } else {
      indent = minIndent + increment - 1;
      end = this.blockBreaks(indent, end);
    }
    while (this.column === indent && this.peek() !== '\0') {
      while (!isIn(this.peek(), BREAKZ)) this.forward();
      this.scanLineBreak();
      end = this.blockBreaks(indent, this.index);
    }
    return { id: '<scalar>', start, end };
  }

  private blockBreaks(indent: number, end: number): number {
    while (this.column < indent && this.peek() === ' ') this.forward();
    while (isIn(this.peek(), BREAKS)) {
      this.scanLineBreak();
      end = this.index;
      while (this.column < indent && this.peek() === ' ') this.forward();
    }
    return end;
  }

  scanFlowScalar(): Token {
    const start = this.index;
    const quote = this.peek();
    const double = quote === '"';
    this.forward();
    this.flowNonSpaces(double, start);
    while (this.peek() !== quote) {
      this.flowSpaces(start);
      this.flowNonSpaces(double, start);
    }
    this.forward();
    return this.token('<scalar>', start);
  }

  private flowNonSpaces(double: boolean, start: number): void {
    for (;;) {
      while (!isIn(this.peek(), '\'"\\\0 \t\r\n\x85\u2028\u2029')) this.forward();
      const ch = this.peek();
      if (!double && ch === "'" && this.peek(1) === "'") this.forward(2);
      else if ((double && ch === "'") || (!double && (ch === '"' || ch === '\\'))) this.forward();
      else if (double && ch === '\\') {
        this.forward();
        const e = this.peek();
        if (isIn(e, ESCAPES) && e !== '\0') this.forward();
        else if (e in ESCAPE_CODES) {
          const n = ESCAPE_CODES[e];
          this.forward();
          for (let k = 0; k < n; k++)
            if (!isIn(this.peek(k), HEX) || this.peek(k) === '\0')
              this.fail(
                'while scanning a double-quoted scalar',
                start,
                `expected escape sequence of ${n} hexadecimal numbers, but found ${pyRepr(this.peek(k))}`,
              );
          this.forward(n);
        } else if (isIn(e, BREAKS)) {
          this.scanLineBreak();
          this.flowBreaks(start);
        } else this.fail('while scanning a double-quoted scalar', start, `found unknown escape character ${pyRepr(e)}`);
      } else return;
    }
  }

  private flowSpaces(start: number): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.forward();
    const ch = this.peek();
    if (ch === '\0') this.fail('while scanning a quoted scalar', start, 'found unexpected end of stream');
    if (isIn(ch, BREAKS)) {
      this.scanLineBreak();
      this.flowBreaks(start);
    }
  }

  private flowBreaks(start: number): void {
    for (;;) {
      if (this.atSeparator()) this.fail('while scanning a quoted scalar', start, 'found unexpected document separator');
      while (this.peek() === ' ' || this.peek() === '\t') this.forward();
      if (!isIn(this.peek(), BREAKS)) return;
      this.scanLineBreak();
    }
  }

  scanPlain(): Token {
    const start = this.index;
    let end = start;
    const indent = this.indent + 1;
    const stops = this.flowLevel ? '\0 \t\r\n\x85\u2028\u2029,[]{}' : BLANKZ;
    for (;;) {
      if (this.peek() === '#') break;
      let n = 0;
      for (;;) {
        const ch = this.peek(n);
        if (isIn(ch, BLANKZ) || (ch === ':' && isIn(this.peek(n + 1), stops)) || (this.flowLevel && isIn(ch, ',?[]{}')))
          break;
        n++;
      }
      if (n === 0) break;
      this.allowSimpleKey = false;
      this.forward(n);
      end = this.index;
      if (!this.plainSpaces() || this.peek() === '#' || (!this.flowLevel && this.column < indent)) break;
    }
    return { id: '<scalar>', start, end, plain: true };
  }

  /** scan_plain_spaces: whether the scalar may go on (spaces or line breaks were read, no separator). */
  private plainSpaces(): boolean {
    const ws = this.index;
    while (this.peek() === ' ') this.forward();
    if (!isIn(this.peek(), BREAKS)) return this.index > ws;
    this.scanLineBreak();
    this.allowSimpleKey = true;
    if (this.atSeparator()) return false;
    while (isIn(this.peek(), ' \r\n\x85\u2028\u2029')) {
      if (this.peek() === ' ') this.forward();
      else {
        this.scanLineBreak();
        if (this.atSeparator()) return false;
      }
    }
    return true;
  }
}
