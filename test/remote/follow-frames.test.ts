// The follower's problem frames and the FollowTrouble policy (pure: no follower, no sshd): when a
// run of failures is reported, that it is cleared once, and that secrets never reach its text.
import { describe, it, expect, afterEach } from 'vitest';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { FrameParser, type Frame, type WireFrame } from '../../src/remote/follow-frames.js';
import { FrameInflater } from '../../src/remote/follow-inflate.js';
import { waitFor } from '../harness/wait.js';
import { FollowTrouble, PROBLEM_AFTER_ATTEMPTS, type FollowProblem } from '../../src/remote/follow-status.js';

describe('P frames', () => {
  it('parse a problem with its text (spaces, non-ASCII kept) and its clearing, between data frames', () => {
    const frames: WireFrame[] = [];
    const p = new FrameParser((f) => frames.push(f));
    const stream = Buffer.from('P /data/ü log: Permission denied\nD 0 3\nabcP\n');
    for (const b of stream) p.push(Buffer.from([b]));
    expect(frames.filter((f) => f.kind !== 'data')).toEqual([
      { kind: 'problem', text: '/data/ü log: Permission denied' },
      { kind: 'problem', text: null },
    ]);
    expect(Buffer.concat(frames.flatMap((f) => (f.kind === 'data' ? [f.bytes] : []))).toString()).toBe('abc');
  });
});

describe('Z frames', () => {
  /** Frames out of a byte stream fed one byte at a time, compressed ranges inflated. */
  async function inflate(stream: Buffer): Promise<{ frames: Frame[]; broken: string | null }> {
    const frames: Frame[] = [];
    let broken: string | null = null;
    const inflater = new FrameInflater({ frame: (f) => frames.push(f), broken: (why) => (broken = why) });
    const p = new FrameParser((f) => inflater.push(f));
    for (const b of stream) p.push(Buffer.from([b]));
    // zlib inflates off the main thread: wait until the last frame (or the failure) is out.
    await waitFor(() => broken !== null || frames.at(-1)?.kind === 'waiting', {
      intervalMs: 5,
      what: 'the last frame or the failure',
    });
    return { frames, broken };
  }
  const text = (frames: Frame[]): string =>
    Buffer.concat(frames.flatMap((f) => (f.kind === 'data' ? [f.bytes] : []))).toString();

  it('inflate in order with the frames around them, each byte at its offset', async () => {
    const a = Buffer.from('step 1\n'.repeat(500));
    const b = Buffer.from('step 2\n'.repeat(300));
    const za = gzipSync(a);
    const zb = gzipSync(b);
    const stream = Buffer.concat([
      Buffer.from(`D 0 3\nabcZ 3 ${a.length} ${za.length}\n`),
      za,
      Buffer.from(`P\nZ ${3 + a.length} ${b.length} ${zb.length}\n`),
      zb,
      Buffer.from(`D ${3 + a.length + b.length} 2\nxyW\n`),
    ]);
    const { frames, broken } = await inflate(stream);
    expect(broken).toBeNull();
    expect(text(frames)).toBe(`abc${a}${b}xy`);
    let at = 0;
    for (const f of frames) {
      if (f.kind !== 'data') continue;
      expect(f.offset).toBe(at);
      at += f.bytes.length;
    }
    // The problem's clearing between the members stays between them.
    const kinds = frames.map((f) => f.kind).filter((k, i, all) => k !== 'data' || all[i - 1] !== 'data');
    expect(kinds).toEqual(['data', 'problem', 'data', 'waiting']);
  });

  it('a member that is not what its header says breaks the follower, and nothing after it is told', async () => {
    const a = Buffer.from('x'.repeat(1000));
    const za = gzipSync(a);
    const short = await inflate(
      Buffer.concat([Buffer.from(`Z 0 ${a.length + 1} ${za.length}\n`), za, Buffer.from('W\n')]),
    );
    expect(short.broken).toMatch(/1000 bytes, 1001 announced/);
    expect(short.frames.some((f) => f.kind === 'waiting')).toBe(false);
    const bad = Buffer.from(za);
    bad[20] ^= 0xff;
    const corrupt = await inflate(
      Buffer.concat([Buffer.from(`Z 0 ${a.length} ${za.length}\n`), bad, Buffer.from('W\n')]),
    );
    expect(corrupt.broken).toMatch(/(does not inflate|announced)/);
    expect(corrupt.frames.some((f) => f.kind === 'waiting')).toBe(false);
  });
});

// The real zstd and lz4 CLIs (Debian packages in .ci/run), as the follower runs them.
describe.each([
  { codec: 'zstd', argv: ['zstd', '-1', '-q', '-c'] },
  { codec: 'lz4', argv: ['lz4', '-1', '-q', '-c', '-B6'] },
])('$codec members (Z … $codec), as the follower sends them where the target has $codec', ({ codec, argv }) => {
  const compress = (b: Buffer): Buffer => execFileSync(argv[0]!, argv.slice(1), { input: b });
  async function inflate(stream: Buffer, chunk: number): Promise<{ frames: Frame[]; broken: string | null }> {
    const frames: Frame[] = [];
    let broken: string | null = null;
    const inflater = new FrameInflater({ frame: (f) => frames.push(f), broken: (why) => (broken = why) });
    const p = new FrameParser((f) => inflater.push(f));
    for (let i = 0; i < stream.length; i += chunk) p.push(stream.subarray(i, i + chunk));
    await waitFor(() => broken !== null || frames.at(-1)?.kind === 'waiting', {
      intervalMs: 5,
      what: 'the last frame or the failure',
    });
    return { frames, broken };
  }

  it('decode to the announced bytes at their offsets, between gzip members and plain frames, fed in any cut', async () => {
    // Over 1 MiB decoded: the decoder hands its output on in pieces, each at its offset.
    const a = Buffer.from(Array.from({ length: 60_000 }, (_, i) => `step ${i} reward ${i % 7}\n`).join(''));
    const b = Buffer.from('step 2\n'.repeat(300));
    const [za, zb] = [compress(a), gzipSync(b)];
    expect(a.length).toBeGreaterThan(1 << 20);
    const stream = Buffer.concat([
      Buffer.from(`D 0 3\nabcZ 3 ${a.length} ${za.length} ${codec}\n`),
      za,
      Buffer.from(`Z ${3 + a.length} ${b.length} ${zb.length}\n`),
      zb,
      Buffer.from('W\n'),
    ]);
    for (const chunk of [1, 7, 4096, stream.length]) {
      const { frames, broken } = await inflate(stream, chunk);
      expect(broken).toBeNull();
      let at = 0;
      for (const f of frames) {
        if (f.kind !== 'data') continue;
        expect(f.offset).toBe(at);
        at += f.bytes.length;
      }
      const got = Buffer.concat(frames.flatMap((f) => (f.kind === 'data' ? [f.bytes] : [])));
      expect(got.equals(Buffer.concat([Buffer.from('abc'), a, b]))).toBe(true);
    }
  });

  it('a member cut short, or longer than announced, breaks the follower', async () => {
    const a = Buffer.from('y'.repeat(5000) + 'z'.repeat(5000));
    const za = compress(a);
    const cut = za.subarray(0, za.length - 6);
    const short = await inflate(
      Buffer.concat([Buffer.from(`Z 0 ${a.length} ${cut.length} ${codec}\n`), cut, Buffer.from('W\n')]),
      64,
    );
    expect(short.broken).toMatch(/does not inflate|announced/);
    expect(short.frames.some((f) => f.kind === 'waiting')).toBe(false);
    const long = await inflate(
      Buffer.concat([Buffer.from(`Z 0 ${a.length - 1} ${za.length} ${codec}\n`), za, Buffer.from('W\n')]),
      64,
    );
    expect(long.broken).toMatch(/longer than its 9999 bytes/);
  });

  it('an unknown codec word is a protocol error, not bytes taken for gzip', () => {
    const p = new FrameParser(() => undefined);
    expect(() => p.push(Buffer.from('Z 0 10 5 xz\n'))).toThrow(/unexpected line/);
  });
});

describe('FollowTrouble', () => {
  const seen: (FollowProblem | null)[] = [];
  const report = (problem: FollowProblem | null) => seen.push(problem);
  afterEach(() => {
    seen.length = 0;
  });

  it(`is reported after ${PROBLEM_AFTER_ATTEMPTS} failed attempts, once cleared, and not at all when following works at once`, () => {
    let now = 1000;
    const quick = new FollowTrouble('head', '/runs/a/stdout.log', report, () => now);
    quick.failed('awrl-follow: boom');
    quick.ok();
    expect(seen).toEqual([]);
    const t = new FollowTrouble('head', '/runs/b/stdout.log', report, () => now);
    for (let i = 0; i < PROBLEM_AFTER_ATTEMPTS - 1; i++) t.failed('bash: line 1: exec: bash: not found');
    expect(seen).toEqual([]);
    now += 10;
    t.failed('bash: line 1: exec: bash: not found');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      target: 'head',
      path: '/runs/b/stdout.log',
      attempts: PROBLEM_AFTER_ATTEMPTS,
      since: 1000,
    });
    expect(seen[0]!.advice).toMatch(/PATH/);
    expect(t.problem?.path).toBe('/runs/b/stdout.log');
    t.ok();
    t.ok();
    expect(seen).toEqual([seen[0], null]);
    expect(t.problem).toBeNull();
  });

  it('a failure that lasts is reported after the delay even without more attempts; close clears it', async () => {
    let now = 0;
    const t = new FollowTrouble('local', '/x.log', report, () => now);
    t.failed('/x.log: Is a directory');
    now = 10_000;
    t.failed('/x.log: Is a directory');
    expect(seen.at(-1)?.text).toBe(
      "cannot follow /x.log on local: Is a directory; the log path is a directory, not a file: check the run's log path (still retrying)",
    );
    t.close();
    expect(seen.at(-1)).toBeNull();
  });

  it('scrubs the values of secret-looking environment variables out of the text', () => {
    process.env.AWRL_TEST_API_KEY = 'sk-very-secret-value-123';
    try {
      const t = new FollowTrouble('head', '/y.log', report);
      for (let i = 0; i < PROBLEM_AFTER_ATTEMPTS; i++) t.failed('env: WANDB=sk-very-secret-value-123 not found');
      expect(seen.at(-1)!.text).not.toContain('sk-very-secret-value-123');
      expect(seen.at(-1)!.error).toContain('<redacted>');
      t.close();
    } finally {
      delete process.env.AWRL_TEST_API_KEY;
    }
  });
});
