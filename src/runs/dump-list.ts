// A run's trajectory dumps read on the target (webgym-dumps.md): where they are, what each version
// holds (one listing script: names, sizes, each record's first bytes), a whole record, screenshots.
// The pure reading is src/episodes; the bytes travel here.
import { remoteScript } from '../remote/quote.js';
import type { Transport } from '../remote/transport.js';
import { DUMP_SUBDIR, parseListing, summaryFromWhole, type DumpKind, type DumpListing } from '../episodes/index.js';
import { sh } from './remote-scripts.js';

/** Where a run's log directory is: `{fileroot}/logs/{user}/{experiment}/{trial}` (SL:176), the user the
 *  trainer's getpass.getuser() gives (LOGNAME, USER, then the account: the ssh user's). */
export interface DumpPlace {
  fileroot: string;
  experiment: string;
  trial: string;
}

/** The record's head a listing sends: enough for every field before `steps` in the records seen
 *  (a few kB); a longer head is read whole afterwards. */
export const HEAD_BYTES = 16384;

// args: fileroot experiment trial "rollout test-rollout" version headBytes [user]
const LIST_SCRIPT = sh`
set -u
user=$\{7:-$\{LOGNAME:-$\{USER:-$(id -un)}}}
log="$1/logs/$user/$2/$3"
printf 'L %s\n' "$log"
for sub in $4; do
  d="$log/$sub"
  [ -d "$d" ] || { printf 'M %s\n' "$sub"; continue; }
  for vd in "$d"/*; do
    v=$\{vd##*/}
    case $v in ''|*[!0-9]*) continue;; esac
    [ -d "$vd" ] || continue
    [ -n "$5" ] && [ "$v" != "$5" ] && continue
    printf 'V %s %s\n' "$sub" "$v"
    find "$vd" -maxdepth 1 -type f -name '*.png' -printf "P $sub $v %s %f\n"
    find "$vd" -maxdepth 1 -type f -name '*_ep*.json' -printf "S $sub $v %s %f\n"
    # Every record's first bytes in one head (one fork a version, not one a record).
    if [ "$6" -gt 0 ]; then
      files=("$vd"/*_ep*.json)
      if [ -e "$\{files[0]}" ]; then
        printf 'H %s %s\n' "$sub" "$v"
        head -v -c "$6" -- "$\{files[@]}" 2>/dev/null
        printf '\nE\n'
      fi
    fi
  done
done
`;

export interface ListOptions {
  kinds?: DumpKind[];
  version?: number;
}

/** Every dumped episode (or one version's), summarised; records whose head was not enough read whole. */
export async function listDumps(t: Transport, place: DumpPlace, o: ListOptions = {}): Promise<DumpListing> {
  const subs = (o.kinds ?? ['train', 'eval']).map((k) => DUMP_SUBDIR[k]).join(' ');
  const args = [place.fileroot, place.experiment, place.trial, subs, o.version === undefined ? '' : String(o.version)];
  const r = await t.exec(remoteScript(LIST_SCRIPT, [...args, String(HEAD_BYTES)]));
  if (r.code !== 0)
    throw new Error(`cannot list the dumps on ${t.target}: ${r.stderr.toString().trim() || `exit ${r.code}`}`);
  const listing = parseListing(r.stdout);
  for (const p of listing.needMore.splice(0)) {
    const text = await t.readFile(p.file).then(
      (b) => b.toString('utf8'),
      () => '',
    );
    listing.episodes.push(summaryFromWhole(p, text));
  }
  return listing;
}

/** How many records each kind holds under `logs/USER/…` (webgym/train.py's wipe: USER root), heads
 *  unread: what a launch warns about before it starts. */
export async function countDumps(
  t: Transport,
  place: DumpPlace,
  user: string,
): Promise<{ logDir: string; episodes: number; versions: number }> {
  const args = [place.fileroot, place.experiment, place.trial, 'rollout test-rollout', '', '0', user];
  const r = await t.exec(remoteScript(LIST_SCRIPT, args));
  if (r.code !== 0) throw new Error(`cannot list the dumps on ${t.target}: ${r.stderr.toString().trim()}`);
  const l = parseListing(r.stdout);
  return { logDir: l.logDir, episodes: l.episodes.length + l.needMore.length, versions: l.versions.length };
}

/** A whole record's text. */
export async function readDumpRecord(t: Transport, file: string): Promise<string> {
  return (await t.readFile(file)).toString('utf8');
}
