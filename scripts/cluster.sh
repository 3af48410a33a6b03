#!/usr/bin/env bash
# An emulated cluster on this machine, to rehearse a multi-host MPI run (docs/cluster.md).
# H hosts, each a network namespace with one link (a veth pair) to a switch (a bridge in a
# namespace of its own); every link is shaped with tc tbf to the same rate in both
# directions. COMMAND runs as root in host 0's namespace, with OpenMPI set up through
# OMPI_MCA_* variables to launch ranks as on a real cluster: a hostfile of the hosts'
# addresses, and an "ssh" that is `ip netns exec`. Ranks on different hosts talk TCP over
# the shaped links; ranks on one host use shared memory (vader), as on a real node.
#
#   scripts/cluster.sh [--hosts H] [--gbit G] [--ranks-per-host N] [--mtu M] [--no-pin]
#                      -- COMMAND...
#   scripts/cluster.sh selftest [--quick] [--bench PATH]
#
#   --hosts H           hosts, 1 to 64 (default 2); host h has the address 10.77.0.(h+1)
#   --gbit G            rate of every link in Gbit/s per direction, 0.001 to 400 (default
#                       10), counted on the wire (TCP/IP headers included); "none" leaves
#                       the links unshaped (the speed this machine's veth path reaches)
#   --ranks-per-host N  slots of each host in the hostfile (default 1): `mpirun -np H*N`
#                       puts ranks 0..N-1 on host 0, the next N on host 1, and so on
#   --mtu M             MTU of the links, 1280 to 65000 (default 9000, jumbo frames as on
#                       most cluster networks; 1500 costs ~4% of the rate in headers)
#   --no-pin            let the hosts' processes run on any core; by default host h runs on
#                       its own share of the cores (h mod cores when there are more hosts
#                       than cores), as a real host has its own: unpinned, the scheduler
#                       may put the ranks that compute at once on one core and the waiting
#                       ones on the other, for a whole run (epochs up to 2x slower)
#   selftest            measures rank-to-rank bandwidth between two hosts against the
#                       configured rate (scripts/cluster_selftest.sh has its options)
#
# In COMMAND, plain `mpirun -np 4 prog` uses the cluster; STRATA_CLUSTER_HOSTS,
# STRATA_CLUSTER_GBIT and STRATA_CLUSTER_HOSTFILE describe it.
# Exit status: COMMAND's; 2 on bad usage; 3 when this machine cannot host the cluster (not
# root, no network namespaces, veth, bridge or tbf). Everything it creates (namespaces,
# links, a temporary folder) goes on exit, failure, Ctrl-C or kill; a run killed with -9
# leaves its namespaces, and the next run removes them.
set -euo pipefail

readonly subnet=10.77.0 prefix_base=strata-cl
hosts=2 gbit=10 ranks_per_host=1 mtu=9000 pin=1
prefix=$prefix_base-$$
created=() tmp="" patience=0

die() {
  echo "cluster.sh: $2" >&2
  exit "$1"
}
usage_error() { die 2 "$1 (usage: see the header of scripts/cluster.sh)"; }

# Runs a command; on failure dies (status 3) with `what` and the command's first error line.
step() {
  local what=$1 err
  shift
  if ! err=$("$@" 2>&1 >/dev/null); then
    die 3 "$what: ${err%%$'\n'*}"
  fi
}

is_int_in() { [[ $1 =~ ^[0-9]+$ ]] && ((10#$1 >= $2 && 10#$1 <= $3)); }

check_gbit() {
  [[ $gbit == none ]] && return 0
  if ! [[ $gbit =~ ^[0-9]*\.?[0-9]+$ ]] ||
    ! awk -v g="$gbit" 'BEGIN {exit !(g >= 0.001 && g <= 400)}'; then
    usage_error "--gbit must be a rate from 0.001 to 400 Gbit/s, or none; got '$gbit'"
  fi
}

parse_args() {
  while (($#)); do
    case $1 in
      --hosts | --gbit | --ranks-per-host | --mtu)
        (($# >= 2)) || usage_error "$1 needs a value"
        case $1 in
          --hosts) hosts=$2 ;;
          --gbit) gbit=$2 ;;
          --ranks-per-host) ranks_per_host=$2 ;;
          --mtu) mtu=$2 ;;
        esac
        shift 2
        ;;
      --no-pin) pin=0 && shift ;;
      --) shift && break ;;
      *) usage_error "unknown option '$1'" ;;
    esac
  done
  (($#)) || usage_error "no command after --"
  command_args=("$@")
  is_int_in "$hosts" 1 64 || usage_error "--hosts must be 1 to 64; got '$hosts'"
  is_int_in "$ranks_per_host" 1 256 ||
    usage_error "--ranks-per-host must be 1 to 256; got '$ranks_per_host'"
  is_int_in "$mtu" 1280 65000 || usage_error "--mtu must be 1280 to 65000; got '$mtu'"
  check_gbit
}

check_machine() {
  ((EUID == 0)) || die 3 "must run as root (network namespaces and tc need CAP_NET_ADMIN)"
  local caps
  caps=$((16#$(awk '/^CapEff/ {print $2}' /proc/self/status)))
  ((caps >> 12 & 1 && caps >> 21 & 1)) ||
    die 3 "needs CAP_NET_ADMIN and CAP_SYS_ADMIN (root outside a restricted container)"
  if ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
    die 3 "needs ip and tc (Debian package iproute2)"
  fi
}

# A namespace of ours is stale when the run that made it (the pid in its name) is gone.
remove_stale() {
  local ns pid
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$prefix_base-[0-9]+-"); do
    pid=${ns#"$prefix_base"-}
    pid=${pid%%-*}
    if ((pid != $$)) && grep -qs cluster.sh "/proc/$pid/cmdline"; then continue; fi
    stop_processes "$ns"
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/tmp/$prefix_base-$pid".*
  done
}

ns_pids() {
  local ns
  for ns in "$@"; do ip netns pids "$ns" 2>/dev/null; done
}

# Waits up to $1 seconds for the namespaces $2... to hold no process.
wait_empty() {
  local tenths=$(($1 * 10))
  shift
  while [[ -n $(ns_pids "$@") ]]; do
    ((tenths-- > 0)) || return 1
    sleep 0.1
  done
}

# Lets the processes in the namespaces end for `patience` seconds (Ctrl-C reached them
# too, and mpirun takes a moment to stop its ranks), then TERM, then KILL after 5 s.
stop_processes() {
  local pids
  wait_empty "$patience" "$@" && return 0
  mapfile -t pids < <(ns_pids "$@")
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait_empty 5 "$@" && return 0
  mapfile -t pids < <(ns_pids "$@")
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

# Best effort: every step runs even if one fails.
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  set +e
  if ((${#created[@]})); then
    stop_processes "${created[@]}"
    for ns in "${created[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  fi
  [[ -n $tmp ]] && rm -rf "$tmp"
  exit "$rc"
}

add_netns() {
  step "cannot create network namespace $1" ip netns add "$1"
  created+=("$1")
  step "cannot bring up loopback in $1" ip -n "$1" link set lo up
}

make_switch() {
  add_netns "$prefix-sw"
  step "cannot create the switch (a bridge)" ip -n "$prefix-sw" link add sw0 type bridge
  step "cannot bring up the switch" ip -n "$prefix-sw" link set sw0 up
}

# tbf, per link and direction (rate in bit/s, burst and limit in bytes). burst: what a
# link may send at once after idling, 1 ms at the rate (at least two frames). A smaller
# bucket loses tokens whenever the shaper runs late: 128 KiB cost 3-5% at 10 Gbit/s on 2
# cores. A larger one lets more bytes after each pause go at the unshaped speed (10-18
# Gbit/s here). limit: bytes queued before drops, 10 ms at the rate but at least 8 MiB,
# above one TCP socket's 4 MiB in flight (tcp_limit_output_bytes): no stream is dropped.
set_shaping() {
  [[ $gbit == none ]] && return 0
  read -r rate burst limit < <(awk -v g="$gbit" -v m="$mtu" 'BEGIN {
    bps = g * 1e9 / 8; b = bps / 1000; if (b < 2 * (m + 14)) b = 2 * (m + 14)
    q = bps / 100; if (q < 8388608) q = 8388608
    printf "%.0f %.0f %.0f\n", g * 1e9, b, b + q }')
}

shape() {
  [[ $gbit == none ]] && return 0
  step "tc cannot shape $2 in $1 to $gbit Gbit/s" \
    tc -n "$1" qdisc add dev "$2" root tbf rate "${rate}bit" burst "$burst" limit "$limit"
}

make_host() {
  local h=$1 ns=$prefix-h$1 sw=$prefix-sw
  add_netns "$ns"
  step "cannot create the link of host $h (veth)" \
    ip link add name net0 netns "$ns" type veth peer name "h$h" netns "$sw"
  step "cannot set up the link of host $h" ip -n "$sw" link set "h$h" mtu "$mtu" master sw0 up
  step "cannot set up the link of host $h" ip -n "$ns" link set net0 mtu "$mtu" up
  step "cannot address host $h" ip -n "$ns" addr add "$subnet.$((h + 1))/24" dev net0
  shape "$ns" net0
  shape "$sw" "h$h"
}

# The cores host h runs on ("0", "2-3"): its share of the machine's, or h mod cores.
host_cpus() {
  local cores per
  cores=$(nproc --all)
  if ((hosts >= cores)); then
    echo $(($1 % cores))
  else
    per=$((cores / hosts))
    echo "$(($1 * per))-$(($1 * per + per - 1))"
  fi
}

# `taskset -c CPUS` for host h, or nothing with --no-pin.
pin_prefix() {
  ((pin)) && echo "taskset -c $(host_cpus "$1")"
  return 0
}

# OpenMPI's ssh: `agent HOST COMMAND...` runs COMMAND on HOST (as run_command does for
# host 0) through a shell, as ssh would (OpenMPI passes `PATH=...; export PATH; orted ...`).
write_launcher() {
  local h pins=""
  tmp=$(mktemp -d "/tmp/$prefix.XXXXXX")
  for ((h = 0; h < hosts; h++)); do pins+="    $h) pin=\"$(pin_prefix "$h")\" ;;"$'\n'; done
  for ((h = 0; h < hosts; h++)); do echo "$subnet.$((h + 1)) slots=$ranks_per_host"; done \
    >"$tmp/hostfile"
  cat >"$tmp/agent" <<EOF
#!/bin/sh
case \$1 in
  $subnet.*) h=\$((\${1##*.} - 1)) ;;
  *) echo "cluster agent: \$1 is no host of this cluster" >&2; exit 255 ;;
esac
shift
pin=""
case \$h in
$pins
esac
exec \$pin ip netns exec $prefix-h\$h unshare --uts /bin/sh -c "hostname host\$h || exit 255; \$*"
EOF
  chmod +x "$tmp/agent"
}

# Binding is off because every host's daemon would pin its first rank to core 0 of the
# same machine; yield_when_idle because the hosts' ranks share its cores. OpenMPI's
# session folders go under $tmp, so that they go with it even when mpirun is killed.
export_mpi_settings() {
  export OMPI_MCA_plm_rsh_agent=$tmp/agent OMPI_MCA_orte_default_hostfile=$tmp/hostfile
  export OMPI_MCA_orte_tmpdir_base=$tmp
  export OMPI_MCA_btl=tcp,self,vader
  export OMPI_MCA_btl_tcp_if_include=$subnet.0/24 OMPI_MCA_oob_tcp_if_include=$subnet.0/24
  export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_mpi_yield_when_idle=1
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export STRATA_CLUSTER_HOSTS=$hosts STRATA_CLUSTER_GBIT=$gbit
  export STRATA_CLUSTER_HOSTFILE=$tmp/hostfile
}

# In the background, so that a TERM to this script is handled at once (bash runs traps
# only between commands); <&0 keeps stdin, which a background job would lose. Each host
# has a hostname of its own (host0, host1, ...) in a UTS namespace: OpenMPI names its
# shared-memory files and session folders by hostname and local rank, so hosts that
# shared one name would open each other's.
run_command() {
  local rc=0
  # shellcheck disable=SC2046 # the pin prefix is several words, or none
  $(pin_prefix 0) ip netns exec "$prefix-h0" unshare --uts /bin/sh -c 'hostname host0 && exec "$@"' \
    sh "${command_args[@]}" <&0 &
  wait $! || rc=$?
  return "$rc"
}

main() {
  if [[ ${1:-} == selftest ]]; then
    shift
    exec bash "$(dirname "$0")/cluster_selftest.sh" "$@"
  fi
  parse_args "$@"
  check_machine
  trap cleanup EXIT
  trap 'patience=3 && exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  remove_stale
  set_shaping
  make_switch
  for ((h = 0; h < hosts; h++)); do make_host "$h"; done
  write_launcher
  export_mpi_settings
  run_command
}

main "$@"
