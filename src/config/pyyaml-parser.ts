// PyYAML's Parser (parser.py) and the checks its Composer (composer.py) makes on the events, in
// the order PyYAML makes them: event by event, each pulling tokens from the scanner as it needs.
// The first error raised is the trainer's loader's first error. Events carry no values.
import { PyYamlError, pyStrRepr } from './pyyaml-reader.js';
import { Scanner } from './pyyaml-scanner.js';
import type { Token } from './pyyaml-tokens.js';

type EventKind =
  | 'stream-start'
  | 'stream-end'
  | 'doc-start'
  | 'doc-end'
  | 'alias'
  | 'scalar'
  | 'seq-start'
  | 'seq-end'
  | 'map-start'
  | 'map-end';
interface Event {
  kind: EventKind;
  start: number;
  anchor?: string;
  tag?: string; // the node's full tag ('!' is the non-specific one)
}
type State = () => Event;

const YAML_TAG = 'tag:yaml.org,2002:';
const DEFAULT_HANDLES: [string, string][] = [
  ['!', '!'],
  ['!!', YAML_TAG],
];
/** The tags PyYAML's SafeConstructor builds; any other is "could not determine a constructor". */
const SAFE_TAGS = new Set([
  '!',
  ...'null bool int float binary timestamp omap pairs set str seq map'.split(' ').map((t) => YAML_TAG + t),
]);

class Parser {
  private states: State[] = [];
  private marks: number[] = [];
  private handles = new Map(DEFAULT_HANDLES);
  state: State | null = () => this.streamStart();

  constructor(private readonly s: Scanner) {}

  private tok(): Token {
    return this.s.peekToken()!;
  }
  private get(): Token {
    return this.s.getToken()!;
  }
  private is(...ids: string[]): boolean {
    return this.s.check(...ids);
  }
  private pop(): State {
    return this.states.pop()!;
  }
  private err(context: string | null, contextOffset: number | null, problem: string, offset: number): never {
    throw new PyYamlError(context, contextOffset, problem, offset);
  }
  private empty(at: number): Event {
    return { kind: 'scalar', start: at };
  }

  private streamStart(): Event {
    const t = this.get();
    this.state = () => this.implicitDocumentStart();
    return { kind: 'stream-start', start: t.start };
  }

  private implicitDocumentStart(): Event {
    if (this.is('<directive>', '<document start>', '<stream end>')) return this.documentStart();
    this.handles = new Map(DEFAULT_HANDLES);
    const start = this.tok().start;
    this.states.push(() => this.documentEnd());
    this.state = () => this.node(true);
    return { kind: 'doc-start', start };
  }

  private documentStart(): Event {
    while (this.is('<document end>')) this.get();
    if (this.is('<stream end>')) {
      const t = this.get();
      this.state = null;
      return { kind: 'stream-end', start: t.start };
    }
    const start = this.tok().start;
    this.directives();
    if (!this.is('<document start>'))
      this.err(null, null, `expected '<document start>', but found '${this.tok().id}'`, this.tok().start);
    this.get();
    this.states.push(() => this.documentEnd());
    this.state = () => this.documentContent();
    return { kind: 'doc-start', start };
  }

  private documentEnd(): Event {
    const start = this.tok().start;
    if (this.is('<document end>')) this.get();
    this.state = () => this.documentStart();
    return { kind: 'doc-end', start };
  }

  private documentContent(): Event {
    if (this.is('<directive>', '<document start>', '<document end>', '<stream end>')) {
      const e = this.empty(this.tok().start);
      this.state = this.pop();
      return e;
    }
    return this.node(true);
  }

  private directives(): void {
    let version = false;
    const handles = new Map<string, string>();
    while (this.is('<directive>')) {
      const t = this.get();
      if (t.value === 'YAML') {
        if (version) this.err(null, null, 'found duplicate YAML directive', t.start);
        if (t.extra !== '1')
          this.err(null, null, 'found incompatible YAML document (version 1.* is required)', t.start);
        version = true;
      } else if (t.value === 'TAG') {
        if (handles.has(t.extra!)) this.err(null, null, `duplicate tag handle '${t.extra}'`, t.start);
        handles.set(t.extra!, t.prefix!);
      }
    }
    this.handles = new Map([...DEFAULT_HANDLES, ...handles]);
  }

  private node(block: boolean, indentlessSequence = false): Event {
    if (this.is('<alias>')) {
      const t = this.get();
      this.state = this.pop();
      return { kind: 'alias', start: t.start, anchor: t.value };
    }
    let anchor: string | undefined;
    let start: number | null = null;
    let tag: Token | null = null;
    if (this.is('<anchor>')) {
      const t = this.get();
      start = t.start;
      anchor = t.value;
      if (this.is('<tag>')) tag = this.get();
    } else if (this.is('<tag>')) {
      tag = this.get();
      start = tag.start;
      if (this.is('<anchor>')) anchor = this.get().value;
    }
    if (tag && tag.value !== undefined && !this.handles.has(tag.value))
      this.err('while parsing a node', start, `found undefined tag handle '${tag.value}'`, tag.start);
    const full = tag ? (tag.value === undefined ? tag.extra : this.handles.get(tag.value)! + tag.extra) : undefined;
    const at = start ?? this.tok().start;
    const props = { anchor, tag: full };
    if (indentlessSequence && this.is('-')) {
      this.state = () => this.indentlessSequenceEntry();
      return { kind: 'seq-start', start: at, ...props };
    }
    if (this.is('<scalar>')) {
      this.get();
      this.state = this.pop();
      return { kind: 'scalar', start: at, ...props };
    }
    if (this.is('[')) {
      this.state = () => this.flowEntry(']', true);
      return { kind: 'seq-start', start: at, ...props };
    }
    if (this.is('{')) {
      this.state = () => this.flowEntry('}', true);
      return { kind: 'map-start', start: at, ...props };
    }
    if (block && this.is('<block sequence start>')) {
      this.state = () => this.blockFirst('seq');
      return { kind: 'seq-start', start: at, ...props };
    }
    if (block && this.is('<block mapping start>')) {
      this.state = () => this.blockFirst('map');
      return { kind: 'map-start', start: at, ...props };
    }
    if (anchor !== undefined || tag) {
      this.state = this.pop();
      return { kind: 'scalar', start: at, ...props };
    }
    this.err(
      `while parsing a ${block ? 'block' : 'flow'} node`,
      at,
      `expected the node content, but found '${this.tok().id}'`,
      this.tok().start,
    );
  }

  private blockFirst(kind: 'seq' | 'map'): Event {
    this.marks.push(this.get().start);
    return kind === 'seq' ? this.blockSequenceEntry() : this.blockMappingKey();
  }

  private blockEnd(kind: 'seq' | 'map'): Event {
    if (!this.is('<block end>'))
      this.err(
        `while parsing a block ${kind === 'seq' ? 'collection' : 'mapping'}`,
        this.marks[this.marks.length - 1],
        `expected <block end>, but found '${this.tok().id}'`,
        this.tok().start,
      );
    const t = this.get();
    this.state = this.pop();
    this.marks.pop();
    return { kind: kind === 'seq' ? 'seq-end' : 'map-end', start: t.start };
  }

  private blockSequenceEntry(): Event {
    if (!this.is('-')) return this.blockEnd('seq');
    const t = this.get();
    if (this.is('-', '<block end>')) {
      this.state = () => this.blockSequenceEntry();
      return this.empty(t.end);
    }
    this.states.push(() => this.blockSequenceEntry());
    return this.node(true);
  }

  private indentlessSequenceEntry(): Event {
    if (!this.is('-')) {
      this.state = this.pop();
      return { kind: 'seq-end', start: this.tok().start };
    }
    const t = this.get();
    if (this.is('-', '?', ':', '<block end>')) {
      this.state = () => this.indentlessSequenceEntry();
      return this.empty(t.end);
    }
    this.states.push(() => this.indentlessSequenceEntry());
    return this.node(true);
  }

  private blockMappingKey(): Event {
    if (!this.is('?')) return this.blockEnd('map');
    return this.blockPart(() => this.blockMappingValue());
  }

  private blockMappingValue(): Event {
    if (!this.is(':')) {
      this.state = () => this.blockMappingKey();
      return this.empty(this.tok().start);
    }
    return this.blockPart(() => this.blockMappingKey());
  }

  /** A block mapping's key or value after its '?' or ':': a node, or empty before the next part. */
  private blockPart(then: State): Event {
    const t = this.get();
    if (this.is('?', ':', '<block end>')) {
      this.state = then;
      return this.empty(t.end);
    }
    this.states.push(then);
    return this.node(true, true);
  }

  /** parse_flow_sequence_entry and parse_flow_mapping_key: one entry of `[…]` or `{…}`. */
  private flowEntry(close: ']' | '}', first: boolean): Event {
    if (first) this.marks.push(this.get().start);
    const what = close === ']' ? 'sequence' : 'mapping';
    if (!this.is(close)) {
      if (!first) {
        if (this.is(',')) this.get();
        else
          this.err(
            `while parsing a flow ${what}`,
            this.marks[this.marks.length - 1],
            `expected ',' or '${close}', but got '${this.tok().id}'`,
            this.tok().start,
          );
      }
      const next: State = () => this.flowEntry(close, false);
      if (this.is('?')) {
        if (close === ']') {
          // A single pair inside a sequence: an implicit one-entry mapping.
          const start = this.tok().start;
          this.state = () => this.flowPairKey(close, () => this.flowPairEnd(next));
          return { kind: 'map-start', start };
        }
        return this.flowPairKey(close, next);
      }
      if (!this.is(close)) {
        this.states.push(close === ']' ? next : () => this.flowEmptyValue(next));
        return this.node(false);
      }
    }
    const t = this.get();
    this.state = this.pop();
    this.marks.pop();
    return { kind: close === ']' ? 'seq-end' : 'map-end', start: t.start };
  }

  /** After '?' in a flow collection: the key node (or empty), then the value. */
  private flowPairKey(close: string, then: State): Event {
    const t = this.get();
    const value: State = () => this.flowPairValue(close, then);
    if (this.is(':', ',', close)) {
      this.state = value;
      return this.empty(t.end);
    }
    this.states.push(value);
    return this.node(false);
  }

  private flowPairValue(close: string, then: State): Event {
    if (!this.is(':')) {
      this.state = then;
      return this.empty(this.tok().start);
    }
    const t = this.get();
    if (this.is(',', close)) {
      this.state = then;
      return this.empty(t.end);
    }
    this.states.push(then);
    return this.node(false);
  }

  private flowPairEnd(then: State): Event {
    this.state = then;
    return { kind: 'map-end', start: this.tok().start };
  }

  private flowEmptyValue(then: State): Event {
    this.state = then;
    return this.empty(this.tok().start);
  }
}

/** The first error the trainer's loader (PyYAML's SafeLoader, one document) raises: scanner,
 *  parser, composer (undefined alias, duplicate anchor, a second document), and of the
 *  constructor's, a tag it has no constructor for (the first in the file; the constructor's own
 *  order differs only when the file holds several such mistakes). */
export function pyyamlFirstError(text: string): PyYamlError | null {
  const parser = new Parser(new Scanner(text));
  let anchors = new Map<string, number>();
  let docs = 0;
  let docStart = 0;
  let unknownTag: Event | null = null; // a tag the constructor refuses, once the whole file is parsed
  try {
    while (parser.state) {
      const e = parser.state();
      if (!unknownTag && tagProblem(e)) unknownTag = e;
      if (e.kind === 'doc-start') {
        if (++docs > 1)
          return new PyYamlError(
            'expected a single document in the stream',
            docStart,
            'but found another document',
            e.start,
          );
        docStart = e.start;
      } else if (e.kind === 'doc-end') anchors = new Map();
      else if (e.kind === 'alias') {
        if (!anchors.has(e.anchor!)) return new PyYamlError(null, null, `found undefined alias '${e.anchor}'`, e.start);
      } else if (e.anchor !== undefined) {
        const first = anchors.get(e.anchor);
        if (first !== undefined)
          return new PyYamlError(
            `found duplicate anchor '${e.anchor}'; first occurrence`,
            first,
            'second occurrence',
            e.start,
          );
        anchors.set(e.anchor, e.start);
      }
    }
    return unknownTag && new PyYamlError(null, null, tagProblem(unknownTag)!, unknownTag.start);
  } catch (err) {
    if (err instanceof PyYamlError) return err;
    throw err;
  }
}

const SCALAR_TAGS = new Set('null bool int float binary timestamp str'.split(' ').map((t) => YAML_TAG + t));
const SEQ_TAGS = new Set('seq omap pairs'.split(' ').map((t) => YAML_TAG + t));
const NODE_NAMES: Partial<Record<EventKind, string>> = {
  scalar: 'scalar',
  'seq-start': 'sequence',
  'map-start': 'mapping',
};

/** What SafeConstructor raises for a node's tag: one it has no constructor for, or one for
 *  another kind of node (`!!str` on a mapping), or null. */
function tagProblem(e: Event): string | null {
  if (e.tag === undefined || e.tag === '!') return null;
  if (!SAFE_TAGS.has(e.tag)) return `could not determine a constructor for the tag ${pyStrRepr(e.tag)}`;
  const found = NODE_NAMES[e.kind] ?? 'scalar';
  const want = SCALAR_TAGS.has(e.tag) ? 'scalar' : SEQ_TAGS.has(e.tag) ? 'sequence' : 'mapping';
  return want === found ? null : `expected a ${want} node, but found ${found}`;
}
