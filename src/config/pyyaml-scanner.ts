// PyYAML's Scanner (scanner.py): indentation, simple keys, and which token starts where, fetched
// lazily as the parser asks, because PyYAML raises the first error met in that order (a parser
// error on an early token wins over a scanner error further on). See pyyaml-reader.ts.
import { BLANKZ, BREAKZ, isIn, pyRepr } from './pyyaml-reader.js';
import { TokenScanner, type Token } from './pyyaml-tokens.js';

interface SimpleKey {
  tokenNumber: number;
  required: boolean;
  index: number;
  line: number;
  column: number;
}

export class Scanner extends TokenScanner {
  private done = false;
  private tokens: Token[] = [];
  private tokensTaken = 0;
  private indents: number[] = [];
  private possible = new Map<number, SimpleKey>();

  constructor(text: string) {
    super(text);
    this.tokens.push({ id: '<stream start>', start: 0, end: 0 });
  }

  check(...ids: string[]): boolean {
    const t = this.peekToken();
    return t !== undefined && (ids.length === 0 || ids.includes(t.id));
  }

  peekToken(): Token | undefined {
    while (this.needMore()) this.fetchMore();
    return this.tokens[0];
  }

  getToken(): Token | undefined {
    while (this.needMore()) this.fetchMore();
    if (!this.tokens.length) return undefined;
    this.tokensTaken++;
    return this.tokens.shift();
  }

  private needMore(): boolean {
    if (this.done) return false;
    if (!this.tokens.length) return true;
    this.stalePossibleKeys();
    return this.nextPossibleKey() === this.tokensTaken;
  }

  private fetchMore(): void {
    this.scanToNextToken();
    this.stalePossibleKeys();
    this.unwindIndent(this.column);
    const ch = this.peek();
    const col0 = this.column === 0;
    if (ch === '\0') return this.fetchStreamEnd();
    if (ch === '%' && col0) return this.fetchDirective();
    if ((ch === '-' || ch === '.') && col0 && this.atSeparator())
      return this.fetchDocumentIndicator(ch === '-' ? '<document start>' : '<document end>');
    if (ch === '[' || ch === '{') return this.fetchFlowStart(ch);
    if (ch === ']' || ch === '}') return this.fetchFlowEnd(ch);
    if (ch === ',') {
      this.allowSimpleKey = true;
      this.removePossibleKey();
      return this.simple(',');
    }
    if (ch === '-' && isIn(this.peek(1), BLANKZ)) return this.fetchBlockEntry();
    if (ch === '?' && (this.flowLevel || isIn(this.peek(1), BLANKZ))) return this.fetchKey();
    if (ch === ':' && (this.flowLevel || isIn(this.peek(1), BLANKZ))) return this.fetchValue();
    if (ch === '*' || ch === '&' || ch === '!') {
      this.savePossibleKey();
      this.allowSimpleKey = false;
      this.tokens.push(ch === '!' ? this.scanTag() : this.scanAnchor());
      return;
    }
    if ((ch === '|' || ch === '>') && !this.flowLevel) {
      this.allowSimpleKey = true;
      this.removePossibleKey();
      this.tokens.push(this.scanBlockScalar());
      return;
    }
    if (ch === "'" || ch === '"') {
      this.savePossibleKey();
      this.allowSimpleKey = false;
      this.tokens.push(this.scanFlowScalar());
      return;
    }
    if (this.checkPlain()) {
      this.savePossibleKey();
      this.allowSimpleKey = false;
      this.tokens.push(this.scanPlain());
      return;
    }
    this.fail('while scanning for the next token', null, `found character ${pyRepr(ch)} that cannot start any token`);
  }

  private checkPlain(): boolean {
    const ch = this.peek();
    return (
      !isIn(ch, '\0 \t\r\n\x85\u2028\u2029-?:,[]{}#&*!|>\'"%@`') ||
      (!isIn(this.peek(1), BLANKZ) && (ch === '-' || (!this.flowLevel && (ch === '?' || ch === ':'))))
    );
  }

  private simple(id: string): void {
    const start = this.index;
    this.forward();
    this.tokens.push(this.token(id, start));
  }

  private nextPossibleKey(): number | null {
    let min: number | null = null;
    for (const k of this.possible.values()) if (min === null || k.tokenNumber < min) min = k.tokenNumber;
    return min;
  }

  private stalePossibleKeys(): void {
    for (const [level, key] of this.possible) {
      if (key.line !== this.line || this.index - key.index > 1024) {
        if (key.required) this.fail('while scanning a simple key', key.index, "could not find expected ':'");
        this.possible.delete(level);
      }
    }
  }

  private savePossibleKey(): void {
    const required = !this.flowLevel && this.indent === this.column;
    if (!this.allowSimpleKey) return;
    this.removePossibleKey();
    this.possible.set(this.flowLevel, {
      tokenNumber: this.tokensTaken + this.tokens.length,
      required,
      index: this.index,
      line: this.line,
      column: this.column,
    });
  }

  private removePossibleKey(): void {
    const key = this.possible.get(this.flowLevel);
    if (!key) return;
    if (key.required) this.fail('while scanning a simple key', key.index, "could not find expected ':'");
    this.possible.delete(this.flowLevel);
  }

  private unwindIndent(column: number): void {
    if (this.flowLevel) return;
    while (this.indent > column) {
      this.indent = this.indents.pop()!;
      this.tokens.push({ id: '<block end>', start: this.index, end: this.index });
    }
  }

  private addIndent(column: number): boolean {
    if (this.indent >= column) return false;
    this.indents.push(this.indent);
    this.indent = column;
    return true;
  }

  private fetchStreamEnd(): void {
    this.unwindIndent(-1);
    this.removePossibleKey();
    this.allowSimpleKey = false;
    this.possible.clear();
    this.tokens.push({ id: '<stream end>', start: this.index, end: this.index });
    this.done = true;
  }

  private fetchDirective(): void {
    this.unwindIndent(-1);
    this.removePossibleKey();
    this.allowSimpleKey = false;
    this.tokens.push(this.scanDirective());
  }

  private fetchDocumentIndicator(id: string): void {
    this.unwindIndent(-1);
    this.removePossibleKey();
    this.allowSimpleKey = false;
    const start = this.index;
    this.forward(3);
    this.tokens.push(this.token(id, start));
  }

  private fetchFlowStart(ch: string): void {
    this.savePossibleKey();
    this.flowLevel++;
    this.allowSimpleKey = true;
    this.simple(ch);
  }

  private fetchFlowEnd(ch: string): void {
    this.removePossibleKey();
    this.flowLevel--;
    this.allowSimpleKey = false;
    this.simple(ch);
  }

  private fetchBlockEntry(): void {
    if (!this.flowLevel) {
      if (!this.allowSimpleKey) this.fail(null, null, 'sequence entries are not allowed here');
      if (this.addIndent(this.column))
        this.tokens.push({ id: '<block sequence start>', start: this.index, end: this.index });
    }
    this.allowSimpleKey = true;
    this.removePossibleKey();
    this.simple('-');
  }

  private fetchKey(): void {
    if (!this.flowLevel) {
      if (!this.allowSimpleKey) this.fail(null, null, 'mapping keys are not allowed here');
      if (this.addIndent(this.column))
        this.tokens.push({ id: '<block mapping start>', start: this.index, end: this.index });
    }
    this.allowSimpleKey = !this.flowLevel;
    this.removePossibleKey();
    this.simple('?');
  }

  private fetchValue(): void {
    const key = this.possible.get(this.flowLevel);
    if (key) {
      this.possible.delete(this.flowLevel);
      const at = key.tokenNumber - this.tokensTaken;
      this.tokens.splice(at, 0, { id: '?', start: key.index, end: key.index });
      if (!this.flowLevel && this.addIndent(key.column))
        this.tokens.splice(at, 0, { id: '<block mapping start>', start: key.index, end: key.index });
      this.allowSimpleKey = false;
    } else {
      if (!this.flowLevel && !this.allowSimpleKey) this.fail(null, null, 'mapping values are not allowed here');
      if (!this.flowLevel && this.addIndent(this.column))
        this.tokens.push({ id: '<block mapping start>', start: this.index, end: this.index });
      this.allowSimpleKey = !this.flowLevel;
      this.removePossibleKey();
    }
    this.simple(':');
  }

  private scanToNextToken(): void {
    if (this.index === 0 && this.peek() === '\ufeff') this.forward();
    for (;;) {
      while (this.peek() === ' ') this.forward();
      if (this.peek() === '#') while (!isIn(this.peek(), BREAKZ)) this.forward();
      if (!this.scanLineBreak()) return;
      if (!this.flowLevel) this.allowSimpleKey = true;
    }
  }
}
