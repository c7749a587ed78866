// PyYAML's reader as its scanner sees it: a cursor over the text with PyYAML's line and column
// counting (a lone \r, \x85, \u2028 and \u2029 break lines; a BOM takes no column), and the error
// PyYAML raises, with its marks as offsets. The trainer's loader is PyYAML's pure-Python
// SafeLoader; pyyaml-scanner.ts and pyyaml-parser.ts follow its code so that a broken file fails
// at PyYAML's problem_mark, and a file PyYAML reads is read.

/** A MarkedYAMLError of PyYAML: its context and problem texts and both marks (offsets). */
export class PyYamlError extends Error {
  constructor(
    readonly context: string | null,
    readonly contextOffset: number | null,
    readonly problem: string,
    readonly offset: number,
  ) {
    super(problem);
  }
}

/** Characters PyYAML's tests write as `'\0 \t\r\n\x85\u2028\u2029'` (the end of the text is '\0'). */
export const BLANKZ = '\0 \t\r\n\x85\u2028\u2029';
export const BREAKZ = '\0\r\n\x85\u2028\u2029';
/** A space or BREAKZ: what may follow a directive's parts or a tag (PyYAML's '\0 \r\n\x85\u2028\u2029'). */
export const SPACEZ = '\0 \r\n\x85\u2028\u2029';
export const BREAKS = '\r\n\x85\u2028\u2029';
export const isIn = (c: string, set: string): boolean => set.includes(c); // c is always one character
export const isWordChar = (c: string): boolean => /^[0-9A-Za-z_-]$/.test(c);

/** Python's repr() of a one-character string, as PyYAML's messages quote it (%r). */
export function pyRepr(c: string): string {
  const named: Record<string, string> = {
    '\0': "'\\x00'",
    '\t': "'\\t'",
    '\n': "'\\n'",
    '\r': "'\\r'",
    "'": '"\'"',
    '\\': "'\\\\'",
    '\x85': "'\\x85'",
  };
  return named[c] ?? `'${c}'`;
}

/** Python's repr() of a string (a tag in a message). */
export function pyStrRepr(v: string): string {
  const q = v.includes("'") && !v.includes('"') ? '"' : "'";
  return q + v.replace(/\\/g, '\\\\').replace(new RegExp(q, 'g'), `\\${q}`) + q;
}

export class Reader {
  index = 0;
  line = 0;
  column = 0;
  constructor(readonly text: string) {}

  peek(k = 0): string {
    const i = this.index + k;
    return i < this.text.length ? this.text[i] : '\0';
  }

  prefix(n: number): string {
    return this.text.slice(this.index, this.index + n);
  }

  forward(n = 1): void {
    for (; n > 0; n--) {
      const ch = this.text[this.index++];
      if (ch === undefined) {
        this.index--; // never past the end ('\0')
        return;
      }
      if ('\n\x85\u2028\u2029'.includes(ch) || (ch === '\r' && this.text[this.index] !== '\n')) {
        this.line++;
        this.column = 0;
      } else if (ch !== '\ufeff' && !(ch >= '\udc00' && ch <= '\udfff')) this.column++; // a surrogate pair is one character
    }
  }

  /** scan_line_break: '\n' for \r\n, \r, \n, \x85; the break itself for \u2028/\u2029; '' if none. */
  scanLineBreak(): string {
    const ch = this.peek();
    if (isIn(ch, '\r\n\x85')) {
      this.forward(this.prefix(2) === '\r\n' ? 2 : 1);
      return '\n';
    }
    if (ch === '\u2028' || ch === '\u2029') {
      this.forward();
      return ch;
    }
    return '';
  }

  /** `---` or `...` followed by a blank at the cursor (the caller knows it is at a line start). */
  atSeparator(): boolean {
    const p = this.prefix(3);
    return (p === '---' || p === '...') && isIn(this.peek(3), BLANKZ);
  }
}
