#!/usr/bin/env bash
# A real Slurm cluster on this one machine, for the Slurm tests (docs/control-planes.md, "The
# test cluster"). Needs Debian's slurm-wlm and munge (scripts/setup.sh installs them) and root.
#
#   scripts/slurm-cluster.sh start N GPUS DIR [BASE_PORT]
#   scripts/slurm-cluster.sh stop DIR
#
# start: writes DIR/slurm.conf and DIR/gres.conf, starts munged if none is running, one slurmctld
# and N slurmd (`slurmd -N n1` ... `-N nN`), every one on 127.0.0.1, with state, spool, logs,
# pid files and fake GPU devices under DIR; each node has 8 CPUs, GPUS GPUs and 1000 MB; one
# partition `main` holding every node. Waits (at most MLSCHED_SLURM_WAIT seconds, default 60)
# until every node is IDLE. Then `export SLURM_CONF=DIR/slurm.conf` points sinfo, squeue,
# sbatch and scontrol at it.
# Ports: slurmctld on BASE_PORT, node nI on BASE_PORT+I. BASE_PORT is the optional last argument, else
# $MLSCHED_SLURM_PORT_BASE, else a random base in 20000-39999 whose N+1 ports nothing listens
# on (checked in /proc/net/tcp), so two clusters or another service do not collide.
#
# stop: cancels the cluster's jobs, stops exactly the daemons start started (their pid files
# under DIR/run; munged only if start started it), kills job steps left by them, and removes
# DIR's state, spool, devices and pid files (DIR/log and the config stay for a post-mortem).
set -euo pipefail
# The daemons live in /usr/sbin, which a non-login root shell may not have on PATH.
export PATH="$PATH:/usr/sbin:/sbin"

die() { echo "slurm-cluster: $*" >&2; exit 1; }
usage() { die "usage: $0 start N GPUS DIR [BASE_PORT] | stop DIR"; }

# Is anything listening on TCP port $1? (From /proc: a fresh machine may lack ss and pgrep.)
port_busy() {
  local hex
  hex=$(printf '%04X' "$1")
  grep -qE ":$hex [0-9A-F]+:[0-9A-F]+ 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# The pids of the processes whose command name is $1.
pids_named() {
  local f
  for f in /proc/[0-9]*/comm; do
    [ "$(cat "$f" 2>/dev/null)" = "$1" ] && basename "$(dirname "$f")"
  done
  return 0
}

pick_base() {
  local n=$1 base i busy
  for _ in $(seq 1 50); do
    base=$((20000 + RANDOM % 20000))
    busy=0
    for i in $(seq 0 "$n"); do
      if port_busy $((base + i)); then busy=1; break; fi
    done
    [ "$busy" = 0 ] && { echo "$base"; return; }
  done
  die "no free range of $((n + 1)) ports found"
}

# munged: the system one (socket /run/munge/munge.socket.2), started here if not running.
start_munge() {
  local dir=$1
  if [ -n "$(pids_named munged)" ]; then return; fi
  if ! [ -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    mungekey --create --keyfile=/etc/munge/munge.key
  fi
  mkdir -p /run/munge /var/lib/munge /var/log/munge
  chown munge:munge /etc/munge /etc/munge/munge.key /run/munge /var/lib/munge /var/log/munge
  chmod 0700 /etc/munge /var/log/munge
  chmod 0400 /etc/munge/munge.key
  chmod 0755 /run/munge
  runuser -u munge -- /usr/sbin/munged
  local pid
  for _ in $(seq 1 50); do
    pid=$(cat /run/munge/munged.pid 2>/dev/null || true)
    [ -n "$pid" ] && [ -S /run/munge/munge.socket.2 ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || die "munged did not start"
  echo "$pid" >"$dir/run/munged.pid"
}

write_conf() {
  local n=$1 gpus=$2 dir=$3 base=$4 i k last gres
  last=$((gpus - 1))
  {
    echo "# Written by scripts/slurm-cluster.sh: a test cluster on 127.0.0.1 only."
    echo "ClusterName=mlsched"
    echo "SlurmctldHost=localhost(127.0.0.1)"
    echo "SlurmctldPort=$base"
    echo "SlurmdPort=$((base + 1))"
    echo "CommunicationParameters=NoCtldInAddrAny,NoInAddrAny"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmctldPidFile=$dir/run/slurmctld.pid"
    echo "SlurmdPidFile=$dir/run/slurmd-%n.pid"
    echo "SlurmctldLogFile=$dir/log/slurmctld.log"
    echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
    echo "SlurmdParameters=config_overrides"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "MpiDefault=none"
    echo "SwitchType=switch/none"
    echo "SchedulerType=sched/backfill"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "GresTypes=gpu"
    echo "ReturnToService=0"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "JobCompType=jobcomp/none"
    echo "MailProg=/bin/true"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=30"
    echo "InactiveLimit=0"
    echo "KillWait=2"
    echo "MinJobAge=600"
    for i in $(seq 1 "$n"); do
      gres=""
      [ "$gpus" -gt 0 ] && gres=" Gres=gpu:$gpus"
      echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + i)) CPUs=8$gres RealMemory=1000 State=UNKNOWN"
    done
    echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } >"$dir/slurm.conf"
  : >"$dir/gres.conf"
  for i in $(seq 1 "$n"); do
    if [ "$gpus" -gt 0 ]; then
      echo "NodeName=n$i Name=gpu File=$dir/dev/n${i}gpu[0-$last]" >>"$dir/gres.conf"
    fi
    for k in $(seq 0 "$last"); do
      # Character devices: slurmd refuses plain files as GPU device files.
      mknod "$dir/dev/n${i}gpu$k" c 1 3
    done
  done
}

start() {
  [ $# -ge 3 ] || usage
  local n=$1 gpus=$2 dir=$3 base=${4:-${MLSCHED_SLURM_PORT_BASE:-}} i
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, got '$n'"
  [[ "$gpus" =~ ^[0-9]+$ ]] || die "GPUS must be a non-negative integer, got '$gpus'"
  [ "$(id -u)" = 0 ] || die "needs root (slurmd runs jobs as their users)"
  command -v slurmctld >/dev/null || die "slurmctld not installed (scripts/setup.sh installs slurm-wlm)"
  [ -z "$base" ] && base=$(pick_base "$n")
  [[ "$base" =~ ^[0-9]+$ ]] || die "BASE_PORT must be an integer, got '$base'"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ -e "$dir/run/slurmctld.pid" ] && die "$dir already holds a started cluster (stop it first)"
  mkdir -p "$dir/run" "$dir/state" "$dir/log" "$dir/dev"
  for i in $(seq 1 "$n"); do mkdir -p "$dir/spool/n$i"; done
  write_conf "$n" "$gpus" "$dir" "$base"
  start_munge "$dir"
  export SLURM_CONF="$dir/slurm.conf"
  # -i: ignore a previous state in StateSaveLocation (always fresh here).
  slurmctld -i -f "$SLURM_CONF"
  for i in $(seq 1 "$n"); do
    slurmd -N "n$i" -f "$SLURM_CONF"
  done
  local wait=${MLSCHED_SLURM_WAIT:-60} idle
  for _ in $(seq 1 $((wait * 5))); do
    idle=$(sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2 == "idle"' | wc -l)
    if [ "$idle" -ge "$n" ]; then
      echo "slurm-cluster: $n nodes idle; export SLURM_CONF=$SLURM_CONF (slurmctld port $base)"
      return 0
    fi
    sleep 0.2
  done
  sinfo -N >&2 || true
  tail -n 20 "$dir/log/slurmctld.log" >&2 || true
  die "nodes not all idle after ${wait}s (logs in $dir/log; run '$0 stop $dir')"
}

# The pid in pid file $1, if that process is alive.
pid_of() {
  local pid
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

# Job steps (slurmstepd and the jobs under it) started by this cluster's slurmd: they inherit
# SLURM_CONF pointing at this DIR.
cluster_steps() {
  local conf=$1 p
  for p in $(pids_named slurmstepd); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$conf"; then
      echo "$p"
    fi
  done
}

# TERM to every pid given, up to 10 s for them to end, then KILL, then waits until they are gone.
# The pids are read before: a daemon removes its pid file while it is still shutting down.
end_pids() {
  [ $# -gt 0 ] || return 0
  local p alive
  kill -TERM "$@" 2>/dev/null || true
  for _ in $(seq 1 50); do
    alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.2
  done
  kill -KILL "$@" 2>/dev/null || true
  for _ in $(seq 1 50); do
    alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  echo "slurm-cluster: processes still alive after KILL: $*" >&2
}

stop() {
  [ $# -eq 1 ] || usage
  local dir=$1 f p
  [ -d "$dir" ] || die "no directory $dir"
  dir=$(cd "$dir" && pwd)
  export SLURM_CONF="$dir/slurm.conf"
  if [ -n "$(pid_of "$dir/run/slurmctld.pid")" ]; then
    timeout 10 scancel --quiet --user=root 2>/dev/null || true
  fi
  local daemons=()
  for f in "$dir"/run/slurmd-*.pid "$dir/run/slurmctld.pid"; do
    p=$(pid_of "$f")
    [ -n "$p" ] && daemons+=("$p")
  done
  end_pids "${daemons[@]}"
  # shellcheck disable=SC2046
  end_pids $(cluster_steps "$SLURM_CONF")
  p=$(pid_of "$dir/run/munged.pid")
  [ -n "$p" ] && end_pids "$p"
  rm -rf "$dir/run" "$dir/state" "$dir/spool" "$dir/dev"
  echo "slurm-cluster: stopped $dir"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
  start) start "$@" ;;
  stop) stop "$@" ;;
  *) usage ;;
esac
