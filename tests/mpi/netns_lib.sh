# shellcheck shell=bash disable=SC2034  # (globals, read by the scripts that source this one)
# A simulated cluster for Open MPI: 2 or more network namespaces ("hosts") joined by a bridge,
# MPI between them over TCP only. Sourced by tests/mpi/netns_cluster.sh (the ctest test) and
# scripts/bench-mpi-netns.sh (the cross-host benchmark); docs/MPI.md, "Running across hosts".
#
#   source netns_lib.sh
#   netns_check_prereqs <mpiexec> || exit 77     # NETNS_SKIP_REASON says why
#   netns_cluster_up <hosts> || exit 77|1        # creates everything, traps EXIT INT TERM
#   netns_hostfile <file> <slots on host 0> <slots on host 1> ...
#   netns_mpirun <seconds> <hostfile> <ranks> <command...>  # mpirun over TCP across the hosts
#   netns_pids <host index>                      # the processes running in that host
#
# What it creates, named with a prefix unique to this run (NETNS_PREFIX: "pf", 4 random hex
# digits and the shell's pid, cut to 11 characters; another if that namespace exists) so that
# runs side by side do not collide:
#   - a bridge <prefix>b in the root namespace, address 10.213.<n>.254/24 (mpirun runs in the
#     root namespace and its daemons call back to it), <n> picked at random among the /24s of
#     10.213.0.0/16 that no route of this machine covers (under a lock);
#   - per host i: a namespace <prefix>h<i>, with loopback up and a veth pair (<prefix>v<i> on
#     the bridge, eth0 inside) with address 10.213.<n>.<i+1>/24;
#   - a work directory (NETNS_WORK): the rsh agent, each host's ORTE session directory, each
#     host's private view directory, and whatever the caller puts there.
# netns_cluster_down (run by the EXIT trap, also after INT, TERM and HUP) kills what still
# runs in the namespaces, deletes them, the veths and the bridge, and removes the work
# directory.
#
# The hosts share the file system (except NETNS_WORK/view, see below) and, as `ip netns` does
# not separate UTS namespaces, the hostname. The rsh agent therefore starts each host's orted
# with its own ORTE session directory (OMPI_MCA_orte_tmpdir_base=NETNS_WORK/session-<host>):
# with one directory for all, the daemons of one job share /tmp/ompi.<hostname>.<uid>/jf.<job>,
# and about 1 run in 10 was measured to crash in orted's hwloc set-up (SIGSEGV, exit 139) or
# to fail its mkdir.
#
# Per-host files: NETNS_WORK/view is, inside host i (in the mount namespace `ip netns exec`
# makes for the daemon and its ranks), a bind mount of NETNS_WORK/view-h<i>. A file put in
# view-h1 only exists at NETNS_WORK/view/... for the ranks on host 1: a file system that is not
# shared.

# Sourced twice, it keeps its state (the cleanup needs it).
if [[ -z "${NETNS_LIB_LOADED:-}" ]]; then
NETNS_LIB_LOADED=1
# The subnet's /16; the third byte is picked per run.
NETNS_NET16="10.213"
NETNS_SKIP_REASON=""
NETNS_PREFIX=""
NETNS_WORK=""
NETNS_SUBNET=""
NETNS_BRIDGE=""
NETNS_HOSTS=()   # namespace names, also the host names in the hostfile
NETNS_ADDRS=()   # their addresses
NETNS_MPIEXEC=""
NETNS_RUN_DIR=/run/netns
NETNS_CHILD=""   # the mpirun (under timeout) running now, for the cleanup to stop
NETNS_UP=0
# Optional: the epoch second by which every netns_mpirun must have ended (a caller under a
# time limit, as ctest's TIMEOUT, which kills with SIGKILL and so skips the cleanup).
NETNS_DEADLINE="${NETNS_DEADLINE:-}"
fi

# netns_check_prereqs <mpiexec>: 0 if this machine can run the cluster, else 1 with
# NETNS_SKIP_REASON set (one line).
netns_check_prereqs() {
  local mpiexec="$1"
  if [[ $(id -u) -ne 0 ]]; then
    NETNS_SKIP_REASON="not root: creating network namespaces needs root"
  elif ! command -v ip >/dev/null 2>&1; then
    NETNS_SKIP_REASON="no 'ip' command (iproute2)"
  elif ! command -v "$mpiexec" >/dev/null 2>&1; then
    NETNS_SKIP_REASON="no mpiexec at '$mpiexec'"
  elif ! "$mpiexec" --version 2>/dev/null | grep -q "Open MPI\|OpenRTE"; then
    NETNS_SKIP_REASON="'$mpiexec' is not Open MPI's (the harness uses its rsh launcher and options)"
  elif ! command -v timeout >/dev/null 2>&1; then
    NETNS_SKIP_REASON="no 'timeout' command (coreutils)"
  else
    NETNS_MPIEXEC="$mpiexec"
    return 0
  fi
  return 1
}

# netns_cluster_up <hosts>: creates the cluster and installs the traps. Returns 0, or 77 with
# NETNS_SKIP_REASON set where namespaces, bridges or veths are not allowed here, or 1 with
# NETNS_SKIP_REASON set if something else failed (then the caller should fail, not skip).
netns_cluster_up() {
  local hosts="$1" i
  NETNS_WORK="$(mktemp -d "${TMPDIR:-/tmp}/parfilter-netns.XXXXXX")" || {
    NETNS_SKIP_REASON="cannot create a temporary directory"
    return 1
  }
  NETNS_UP=1
  trap netns_cluster_down EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP

  # The first namespace is the probe: may this process create namespaces at all? Its name
  # fixes the prefix: another if it is taken (a run beside this one).
  for i in 1 2 3 4 5 6 7 8; do
    # Interface names have at most 15 characters: 11 for the prefix, then "v<n>" or "b".
    NETNS_PREFIX="pf$(printf '%04x' $((RANDOM % 65536)))$$"
    NETNS_PREFIX="${NETNS_PREFIX:0:11}"
    ip netns add "${NETNS_PREFIX}h0" 2>"$NETNS_WORK/ip.err" && break
    if ! grep -q "exists" "$NETNS_WORK/ip.err"; then
      NETNS_SKIP_REASON="'ip netns add' is not allowed here: $(head -n 1 "$NETNS_WORK/ip.err")"
      return 77
    fi
    NETNS_PREFIX=""
  done
  if [[ -z "$NETNS_PREFIX" ]]; then
    NETNS_SKIP_REASON="no free namespace name: $(head -n 1 "$NETNS_WORK/ip.err")"
    return 1
  fi
  NETNS_BRIDGE="${NETNS_PREFIX}b"
  NETNS_HOSTS=("${NETNS_PREFIX}h0")
  NETNS_RUN_DIR=/run/netns
  [[ -e "$NETNS_RUN_DIR/${NETNS_PREFIX}h0" ]] || NETNS_RUN_DIR=/var/run/netns
  if ! ip link add "$NETNS_BRIDGE" type bridge 2>"$NETNS_WORK/ip.err"; then
    NETNS_SKIP_REASON="cannot create a bridge: $(head -n 1 "$NETNS_WORK/ip.err")"
    return 77
  fi
  if ! ip link add "${NETNS_PREFIX}v0" type veth peer name "${NETNS_PREFIX}p0" \
    2>"$NETNS_WORK/ip.err"; then
    NETNS_SKIP_REASON="cannot create a veth pair: $(head -n 1 "$NETNS_WORK/ip.err")"
    return 77
  fi

  # A /24 nobody here uses, chosen and claimed (the bridge's address) under a lock, so that
  # two runs starting together do not take the same one. The lock is on the directory of
  # `ip netns` (which `ip netns add` made): no lock file to leave behind. Taken: a /24 that a
  # route other than the default covers (an interface's subnet, 10.0.0.0/8 through a VPN...).
  local n="" try lock_fd="" up=0
  if exec {lock_fd}<"$NETNS_RUN_DIR"; then flock -w 30 "$lock_fd" || true; fi 2>/dev/null
  for _ in $(seq 1 50); do
    try=$((RANDOM % 254 + 1))
    if ! ip -4 route show match "${NETNS_NET16}.$try.0/24" | grep -qv '^default'; then
      n="$try"
      break
    fi
  done
  if [[ -n "$n" ]]; then
    NETNS_SUBNET="${NETNS_NET16}.$n.0/24"
    { ip addr add "${NETNS_NET16}.$n.254/24" dev "$NETNS_BRIDGE" &&
      ip link set "$NETNS_BRIDGE" up; } 2>"$NETNS_WORK/ip.err" && up=1
  fi
  [[ -n "$lock_fd" ]] && exec {lock_fd}<&-
  if [[ -z "$n" ]]; then
    NETNS_SKIP_REASON="no free /24 in ${NETNS_NET16}.0.0/16"
    return 1
  elif [[ $up -eq 0 ]]; then
    NETNS_SKIP_REASON="cannot set up the bridge: $(head -n 1 "$NETNS_WORK/ip.err")"
    return 1
  fi

  for ((i = 0; i < hosts; i++)); do
    local ns="${NETNS_PREFIX}h$i" addr="${NETNS_NET16}.$n.$((i + 1))"
    if ! {
      if ((i > 0)); then
        ip netns add "$ns" && NETNS_HOSTS+=("$ns") &&
          ip link add "${NETNS_PREFIX}v$i" type veth peer name "${NETNS_PREFIX}p$i"
      fi &&
        ip link set "${NETNS_PREFIX}v$i" master "$NETNS_BRIDGE" &&
        ip link set "${NETNS_PREFIX}v$i" up &&
        ip link set "${NETNS_PREFIX}p$i" netns "$ns" &&
        ip -n "$ns" link set "${NETNS_PREFIX}p$i" name eth0 &&
        ip -n "$ns" link set lo up &&
        ip -n "$ns" addr add "$addr/24" dev eth0 &&
        ip -n "$ns" link set eth0 up
    } 2>"$NETNS_WORK/ip.err"; then
      NETNS_SKIP_REASON="cannot set up host $i: $(head -n 1 "$NETNS_WORK/ip.err")"
      return 1
    fi
    NETNS_ADDRS+=("$addr")
    mkdir -p "$NETNS_WORK/session-$ns" "$NETNS_WORK/view-h$i"
  done
  mkdir -p "$NETNS_WORK/session-mpirun" "$NETNS_WORK/view"
  netns_write_agent
  return 0
}

# The rsh agent (plm_rsh_agent): mpirun (or, with tree spawn, an orted) runs
#   agent [ssh-style options] <host> <command words...>
# to start an orted on <host>. Like ssh, it joins the words into one shell command line, and
# runs it inside the host's namespace, with the host's own session directory and private view.
netns_write_agent() {
  cat >"$NETNS_WORK/agent.sh" <<EOF
#!/usr/bin/env bash
# rsh agent for mpirun over the namespaces of $NETNS_PREFIX (made by tests/mpi/netns_lib.sh).
work='$NETNS_WORK'
prefix='$NETNS_PREFIX'
EOF
  cat >>"$NETNS_WORK/agent.sh" <<'EOF'
if [[ "${1:-}" == "--inside" ]]; then
  # Inside the host's namespace, in the mount namespace `ip netns exec` made for this command:
  # the private view, the session directory, then the orted.
  host="$2"
  session="$work/session-$host"
  mount --bind "$work/view-${host#"$prefix"}" "$work/view" || exit 1
  # The orted's session directory: its own per host (TMPDIR is the default base, the MCA
  # variable overrides it; mpirun passes on an orte_tmpdir_base of its own environment as a
  # command-line option, which would override both: that one is replaced).
  export TMPDIR="$session" OMPI_MCA_orte_tmpdir_base="$session"
  exec /bin/sh -c "$(sed -E "s|(orte_tmpdir_base) \"[^\"]*\"|\1 \"$session\"|g" <<<"$3")"
fi
while [[ "${1:-}" == -* ]]; do shift; done  # ssh options (-x, ...): none apply
host="$1"
shift
case "$host" in
  "$prefix"h[0-9]*) ;;
  *) echo "netns agent: unknown host '$host'" >&2; exit 255 ;;
esac
exec ip netns exec "$host" "$0" --inside "$host" "$*"
EOF
  chmod +x "$NETNS_WORK/agent.sh"
}

# netns_hostfile <file> <slots...>: one line per host, "<host> slots=<n>", for as many hosts
# as slot counts are given. The namespace names are the host names: the agent maps them back.
netns_hostfile() {
  local file="$1" i=0 slots
  shift
  : >"$file"
  for slots in "$@"; do
    echo "${NETNS_HOSTS[$i]} slots=$slots" >>"$file"
    i=$((i + 1))
  done
}

# The mpirun options of a run across the hosts (NETNS_MPIRUN_FLAGS):
#  - the daemons started by the agent (rsh launcher), each by mpirun itself (no tree spawn);
#  - TCP only: the ob1 messaging layer (pml ucx would bypass the btl list) over the tcp and
#    self transports (no vader: no shared memory, even between ranks of one "host"), and the
#    MPI traffic (btl) and the runtime's (oob) on the bridge's subnet only;
#  - mpi_yield_when_idle: the slots= of the hostfile are all Open MPI knows of the cores, so
#    it would not see that all the "hosts" share this machine's few cores, and its ranks
#    busy-poll: with more ranks than cores each collective then waits for time slices (558
#    cross-backend cases at 4 ranks over 3 hosts on 2 cores: 47 s without it, 2 s with it);
#  - unpinned, oversubscription allowed, -q (one error line, as the other MPI tests);
#  - sanitizer options passed on to the ranks, where set.
netns_mpirun_flags() {
  # shellcheck disable=SC2054  # tcp,self is one word
  NETNS_MPIRUN_FLAGS=(
    --mca plm rsh --mca plm_rsh_agent "$NETNS_WORK/agent.sh" --mca plm_rsh_no_tree_spawn 1
    --mca pml ob1 --mca btl tcp,self
    --mca btl_tcp_if_include "$NETNS_SUBNET" --mca oob_tcp_if_include "$NETNS_SUBNET"
    --mca mpi_yield_when_idle 1 --oversubscribe --bind-to none -q)
  local var
  for var in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
    [[ -n "${!var:-}" ]] && NETNS_MPIRUN_FLAGS+=(-x "$var")
  done
  return 0
}

# netns_mpirun_cmd <hostfile> <ranks>: sets NETNS_MPIRUN to the command line (env, mpiexec and
# its options, without the program) of an mpirun across the hosts in the hostfile, ranks placed
# by slot (host 0's slots first). mpirun itself runs in the root namespace, with a session
# directory of its own; it starts no rank there (the hostfile does not list it).
netns_mpirun_cmd() {
  netns_mpirun_flags
  NETNS_MPIRUN=(env -u OMPI_MCA_orte_tmpdir_base OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "TMPDIR=$NETNS_WORK/session-mpirun"
    "$NETNS_MPIEXEC" --hostfile "$1" -n "$2" "${NETNS_MPIRUN_FLAGS[@]}")
}

# netns_mpirun <seconds> <hostfile> <ranks> <command...>: runs it, killed (exit 124) after
# <seconds> (or at NETNS_DEADLINE).
netns_mpirun() {
  local seconds
  seconds="$(netns_bound "$1")"
  netns_mpirun_cmd "$2" "$3"
  shift 3
  # In the background, waited for: a signal to this shell runs its trap (the cleanup) at once
  # instead of after the command.
  timeout -k 5 "$seconds" "${NETNS_MPIRUN[@]}" "$@" &
  NETNS_CHILD=$!
  wait "$NETNS_CHILD"
}

# netns_bound <seconds>: the seconds, or fewer if NETNS_DEADLINE comes sooner (at least 1).
netns_bound() {
  local seconds="$1" left
  if [[ -n "$NETNS_DEADLINE" ]]; then
    left=$((NETNS_DEADLINE - $(date +%s)))
    ((left < seconds)) && seconds=$left
    ((seconds < 1)) && seconds=1
  fi
  echo "$seconds"
}

# netns_write_bmp <file> <width> <height>: a 24-bit BMP of random pixels (width * 3 a
# multiple of 4: no row padding), for inputs larger than data/'s, without other tools.
netns_write_bmp() {
  local file="$1" w="$2" h="$3" size=$(($2 * $3 * 3))
  {
    printf 'BM'
    netns_le32 $((size + 54)) 0 54 40 "$w" "$h"
    printf '\x01\x00\x18\x00'  # 1 plane, 24 bits
    netns_le32 0 "$size" 2835 2835 0 0
    head -c "$size" /dev/urandom
  } >"$file"
}
netns_le32() {  # each argument as 4 little-endian bytes
  local v
  for v in "$@"; do
    # shellcheck disable=SC2059  # the format is the escapes made just before
    printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) \
      $((v >> 16 & 255)) $((v >> 24 & 255)))"
  done
}

# netns_pids <host index>: the pids of the processes in that host's namespace.
netns_pids() {
  ip netns pids "${NETNS_HOSTS[$1]}" 2>/dev/null
}

netns_cluster_down() {
  local rc=$? ns pid i
  [[ $NETNS_UP -eq 1 ]] || return "$rc"
  set +e  # a caller's errexit must not cut the cleanup short
  NETNS_UP=0
  trap - EXIT INT TERM HUP
  if [[ -n "$NETNS_CHILD" ]] && kill -0 "$NETNS_CHILD" 2>/dev/null; then
    kill -TERM "$NETNS_CHILD" 2>/dev/null  # timeout passes it on to mpirun
    for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$NETNS_CHILD" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$NETNS_CHILD" 2>/dev/null
  fi
  for ns in "${NETNS_HOSTS[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
  done
  for ns in "${NETNS_HOSTS[@]}"; do
    # A namespace whose processes are still exiting may refuse deletion for a moment.
    for i in 1 2 3 4 5; do
      ip netns del "$ns" 2>/dev/null && break
      [[ -e "$NETNS_RUN_DIR/$ns" ]] || break
      sleep 0.2
    done
  done
  # The veths die with their namespaces; one not moved yet (setup failed halfway) does not.
  if [[ -n "$NETNS_PREFIX" ]]; then
    for i in "${!NETNS_HOSTS[@]}" "${#NETNS_HOSTS[@]}"; do
      ip link del "${NETNS_PREFIX}v$i" 2>/dev/null
    done
  fi
  [[ -n "$NETNS_BRIDGE" ]] && ip link del "$NETNS_BRIDGE" 2>/dev/null
  [[ -n "$NETNS_WORK" && -d "$NETNS_WORK" ]] && rm -rf "$NETNS_WORK"
  return "$rc"
}
