// The Ray bring-up of a multi-node Slurm attempt (bash lines for the batch script, slurm-batch.ts).
// As AsyncWebRL's own scripts do: the Ray head on the first node, a worker on every other node, then
// the trainer on the head. Every step is bounded, and the attempt fails (exit 1, with its exit file,
// so the auto-resume chain does not retry a failure of its own) when the cluster does not reach its
// node count: the trainer never starts on fewer nodes than asked for. Progress goes to the log as
// `awrl: starting Ray: …` lines (ray-bringup-log.ts reads them back for the cockpit):
//   awrl: starting Ray: head on n1 (127.0.0.11:6379)
//   awrl: starting Ray: 3/4 nodes joined
//   awrl: starting Ray: 3/4 nodes joined, n3 failed: RuntimeError: Failed to connect to GCS …
//   awrl: starting Ray: failed: 3/4 nodes joined, n3 failed: …; not starting the trainer
//   awrl: starting Ray: 4/4 nodes joined; starting the trainer
// AWRL_RAY_WAIT_SEC (the environment of the job, default 300) bounds the whole bring-up.

export const RAY_SAY = 'awrl: starting Ray: ';

export const RAY_CLUSTER: readonly string[] = [
  '# Multi-node: a Ray cluster first (head on this, the first node; workers on the others), bounded.',
  `awrl_ray_say() { echo "${RAY_SAY}$*" >> "$RUN_DIR/stdout.log"; }`,
  'mapfile -t nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST")',
  'head_node=${nodes[0]}',
  'awrl_ray_wait=${AWRL_RAY_WAIT_SEC:-300}',
  "case $awrl_ray_wait in ''|*[!0-9]*) awrl_ray_wait=300;; esac",
  'awrl_ray_deadline=$((SECONDS + awrl_ray_wait))',
  'awrl_ray_dir=$(mktemp -d "${TMPDIR:-/tmp}/awrl-ray.XXXXXX") || awrl_ray_dir=$RUN_DIR/ray.$SLURM_JOB_ID.${SLURM_RESTART_COUNT:-0}',
  'mkdir -p "$awrl_ray_dir"',
  'awrl_ray_fail() {',
  '  awrl_ray_say "failed: $*; not starting the trainer"',
  '  kill $(jobs -p) 2>/dev/null',
  '  echo 1 > "$RUN_DIR/slurm-exit.$SLURM_JOB_ID"',
  '  exit 1',
  '}',
  '# One blocking `ray start` step on a node: its output to the log and to a per-node file, its exit code after.',
  'awrl_ray_step() {',
  '  local node=$1; shift',
  '  srun --overlap --nodes=1 --ntasks=1 -w "$node" "$@" --block < /dev/null 2>&1 | tee -a "$RUN_DIR/stdout.log" > "$awrl_ray_dir/$node.out"',
  '  echo "${PIPESTATUS[0]}" > "$awrl_ray_dir/$node.rc"',
  '}',
  "# Why a node's step ended: Ray's last line (not srun's \"task 0: Exited with exit code 1\"), else any last line, else its exit code.",
  'awrl_ray_why() {',
  '  local last',
  "  last=$(grep -v -e '^[[:space:]]*$' -e '^srun: ' -e '^slurmstepd' \"$awrl_ray_dir/$1.out\" 2>/dev/null | tail -n 1 | cut -c1-200)",
  '  [ -n "$last" ] || last=$(grep -v \'^[[:space:]]*$\' "$awrl_ray_dir/$1.out" 2>/dev/null | tail -n 1 | cut -c1-200)',
  '  echo "${last:-ray start exited $(cat "$awrl_ray_dir/$1.rc")}"',
  '}',
  "awrl_ray_count() { timeout 30 ray status 2>/dev/null | grep -c ' node_'; }",
  'head_ip=$(timeout 60 srun --overlap --nodes=1 --ntasks=1 -w "$head_node" hostname --ip-address < /dev/null 2>/dev/null | awk \'{print $1}\')',
  '[ -n "$head_ip" ] || awrl_ray_fail "0/${#nodes[@]} nodes joined, $head_node failed: no address from \'hostname --ip-address\' within 60 s"',
  'ray_port=6379',
  'export RAY_ADDRESS="$head_ip:$ray_port"',
  'awrl_ray_say "head on $head_node ($RAY_ADDRESS)"',
  'awrl_ray_step "$head_node" ray start --head --node-ip-address="$head_ip" --port="$ray_port" &',
  'until [ "$(awrl_ray_count)" -ge 1 ]; do',
  '  [ -s "$awrl_ray_dir/$head_node.rc" ] && awrl_ray_fail "0/${#nodes[@]} nodes joined, $head_node failed: $(awrl_ray_why "$head_node")"',
  '  [ "$SECONDS" -ge "$awrl_ray_deadline" ] && awrl_ray_fail "0/${#nodes[@]} nodes joined within $awrl_ray_wait s (the head did not start)"',
  '  sleep 2',
  'done',
  'for node in "${nodes[@]:1}"; do awrl_ray_step "$node" ray start --address="$RAY_ADDRESS" & done',
  'awrl_ray_last=""',
  'while :; do',
  '  awrl_ray_n=$(awrl_ray_count); awrl_ray_msg="$awrl_ray_n/${#nodes[@]} nodes joined"; awrl_ray_bad=0',
  '  for node in "${nodes[@]}"; do',
  '    if [ -s "$awrl_ray_dir/$node.rc" ]; then awrl_ray_bad=$((awrl_ray_bad + 1)); awrl_ray_msg+=", $node failed: $(awrl_ray_why "$node")"; fi',
  '  done',
  '  [ "$awrl_ray_msg" = "$awrl_ray_last" ] || { awrl_ray_say "$awrl_ray_msg"; awrl_ray_last=$awrl_ray_msg; }',
  '  [ "$awrl_ray_bad" = 0 ] && [ "$awrl_ray_n" -ge "${#nodes[@]}" ] && break',
  '  # A node whose step ended will never join: the others get 30 s more to join or fail, so the',
  '  # line says how far the cluster got, then the attempt fails (not the whole deadline).',
  '  if [ "$awrl_ray_bad" -gt 0 ]; then',
  '    awrl_ray_since=${awrl_ray_since:-$SECONDS}',
  '    if [ $((awrl_ray_n + awrl_ray_bad)) -ge "${#nodes[@]}" ] || [ $((SECONDS - awrl_ray_since)) -ge 30 ]; then awrl_ray_fail "$awrl_ray_msg"; fi',
  '  fi',
  '  [ "$SECONDS" -ge "$awrl_ray_deadline" ] && awrl_ray_fail "$awrl_ray_msg within $awrl_ray_wait s"',
  '  sleep 2',
  'done',
  'awrl_ray_say "${#nodes[@]}/${#nodes[@]} nodes joined; starting the trainer"',
];
