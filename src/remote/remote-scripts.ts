// The bash scripts the ssh transport runs on the target. Each is passed as `bash -c SCRIPT argv0
// ARGS...`, so values only ever travel as positional arguments, never spliced into code.

/** `$1` path -> `INODE SIZE SECONDS.FRACTION`, or `missing`. `%y` carries the sub-second part on
 *  every GNU stat (`%.9Y` needs a recent coreutils). */
export const STAT_SCRIPT = `
if [ ! -e "$1" ]; then echo missing; exit 0; fi
stat -L -c '%i %s %Y %y' -- "$1"
`;

/** `$1` path, `$2` offset, `$3` length or empty -> the bytes. A range that ends before the file
 *  does: tail is cut off by SIGPIPE (141) once head has its bytes, which is no failure. */
export const READ_SCRIPT = `
[ -f "$1" ] && [ -r "$1" ] || { echo "cannot read $1: no such readable file" >&2; exit 2; }
if [ -z "$3" ]; then exec tail -c +$(($2 + 1)) -- "$1"; fi
tail -c +$(($2 + 1)) -- "$1" | head -c "$3"
S=("\${PIPESTATUS[@]}")
[ "\${S[1]}" -eq 0 ] && { [ "\${S[0]}" -eq 0 ] || [ "\${S[0]}" -eq 141 ]; }
`;

/** `$1` path, `$2` octal mode; bytes on stdin. Temp file in the same directory + rename(2). */
export const WRITE_SCRIPT = `
d=$(dirname -- "$1")
mkdir -p -- "$d" || exit 1
t=$(mktemp "$d/.awrl-write.XXXXXX") || exit 1
if cat > "$t" && chmod "$2" "$t" && mv -f -- "$t" "$1"; then exit 0; fi
rm -f -- "$t"; exit 1
`;
