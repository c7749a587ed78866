// The follower's resident reader: the live tail of a log read by one long-lived process on the
// target, so an append costs no process start there. The bash follower (follow-frames.ts) cannot
// do it without forking: bash has no seek and no stat, so each delivery started `stat`, `cmp`,
// `dd` and `tee`, and on a loaded head each fork waited for a core (a step after a quiet spell
// arrived 438-492 ms later, p95). Perl can (it is on virtually every Linux head: Debian's
// perl-base is essential), with the same framing and the same checks.
//
// The bash follower keeps everything but the plain append: it attaches, compresses backlogs,
// reports problems and handles rotation, truncation and re-creation. Once it has sent everything
// (offset at the file's size, the file's first 64 bytes delivered) it hands the loop to this
// reader, which runs until the file is anything but appended to: the name leads elsewhere or
// nowhere, the file is shorter than the offset, the bytes before the offset or the first bytes
// differ from those delivered, a burst big enough to compress, a read that fails. It then leaves
// the offset and the bytes just before it where the bash follower keeps them (`live`, `tail` in
// its temp dir) and exits 0: the bash follower's next look sees what happened, as it always did.
// Any other exit (no perl, a perl that fails) and the bash follower goes on alone, as before.
//
// It waits on the push fifo (fd 6: inotifywait's line per change to the file, where the target
// has it) with the poll as its time limit: a pushed change is read at once, and without a push
// (no inotifywait, NFS) the file is polled at the bash follower's pace (`poll` while written in
// the last 2 s, `qpoll` once quiet). Each look is a stat by name and of the file held (syscalls,
// no process); the bytes are compared only when the file changed. A busy log's looks are spaced
// at least GAP apart, so a writer of many small writes does not make a look (and a frame) each.
//
// Args: file, offset, poll (s), qpoll (s), the least backlog sent compressed (0: never), the
// follower's temp dir. fd 3: the file the follower holds; fd 6: the push fifo; stdout: the frames.

/** Perl source, written into the follower's temp dir and run as `perl resident.pl ARGS`; no `${`
 *  in it (it sits in a template literal). */
export const RESIDENT_READER = String.raw`
use strict;
my ($f, $off, $poll, $qpoll, $zmin, $w) = @ARGV;
my $GAP = 0.02; my $CHUNK = 4194304; my $WIN = 256; my $PFX = 64;
open(my $fh, '<&=', 3) or exit 3;
binmode $fh;
my @held = stat($fh) or exit 3;
my $push; open($push, '<&=', 6) or undef $push;
# Nanosecond mtimes where Time::HiRes is there (a same-size rewrite within a second is a change).
my $hstat = eval { require Time::HiRes; \&Time::HiRes::stat };
sub slurp { my $d = ''; open(my $x, '<', $_[0]) or return $d; binmode $x; local $/; $d = <$x>; close $x; defined $d ? $d : '' }
sub spit { open(my $x, '>', $_[0]) or return; binmode $x; print $x $_[1]; close $x }
my $win = slurp("$w/tail");
$win = substr($win, -$WIN) if length($win) > $WIN;
my $done = 0;
# The state the bash follower goes on from, however this ends (but a signal: the follower is ending).
END { if ($done) { spit("$w/tail", $win); spit("$w/live", "$off " . length($win) . "\n") } }
sub pread {
  my ($at, $n) = @_; my $b = '';
  sysseek($fh, $at, 0) or return undef;
  while (length($b) < $n) {
    my $r = sysread($fh, $b, $n - length($b), length($b));
    return undef unless defined $r;
    last if $r == 0;
  }
  return $b;
}
sub put { my $s = $_[0]; while (length $s) { my $r = syswrite(STDOUT, $s); exit 4 unless $r; substr($s, 0, $r) = '' } }
# The first bytes as delivered (pfx: the follower's, from the bytes it sent, never the file read
# again: rewritten since, its new first bytes would pass for ours). A file with NULs there (which
# the follower's copy lacks) cannot be compared: the follower goes on alone (5).
my $pfx = slurp("$w/pfx");
$done = 1;
exit 0 if length($pfx) < $PFX;
if (pread(0, length $pfx) ne $pfx) { exit 5 if index(pread(0, 4096), "\0") >= 0; exit 0 }
# Still the bytes we delivered: the same first bytes, the same bytes just before the offset.
sub same {
  my $k = length $win;
  return 0 if $k > $off;
  my $t = pread($off - $k, $k);
  return 0 unless defined $t && $t eq $win;
  my $p = pread(0, $PFX);
  return defined $p && $p eq $pfx;
}
exit 0 unless same();
my ($lsize, $lmt, $pushed, $looks) = (-1, '', 0, 0);
while (1) {
  my @s = $hstat ? $hstat->($f) : stat($f);
  exit 0 unless @s && $s[0] == $held[0] && $s[1] == $held[1];
  my ($size, $mt) = ($s[7], "$s[9] $s[10]");
  exit 0 if $size < $off;
  # Compared when something changed (and every 50th look all the same, as the bash follower does).
  if ($pushed || $size != $lsize || $mt ne $lmt || ++$looks % 50 == 0) { exit 0 unless same() }
  ($lsize, $lmt) = ($size, $mt);
  exit 0 if $zmin > 0 && $size - $off >= $zmin;
  my $sent = 0;
  while ($off < $size) {
    my $n = $size - $off; $n = $CHUNK if $n > $CHUNK;
    my $b = pread($off, $n);
    exit 0 unless defined $b && length($b) > 0;
    $n = length $b;
    put("D $off $n\n" . $b);
    $win = $n >= $WIN ? substr($b, -$WIN) : substr($win . $b, -$WIN);
    $off += $n; $sent = 1;
  }
  my $busy = time - $s[9] < 2;
  select(undef, undef, undef, $GAP) if $sent && $busy;
  my $rin = ''; vec($rin, 6, 1) = 1 if $push;
  my $n = select($push ? $rin : undef, undef, undef, $busy ? $poll : $qpoll);
  $pushed = 0;
  if ($n > 0) { my $junk; sysread($push, $junk, 65536); $pushed = 1 }
}
`;
