#!/usr/bin/env bash
# Run a real S3-compatible server for tests: Debian's Ceph RGW (radosgw,
# Ceph 16.2 "pacific") on a throw-away single-node cluster.
#
#   scripts/s3-radosgw.sh start DIR [PORT]
#       Creates a fresh cluster whose whole state (ceph.conf, keyring, mon and
#       osd data, logs, pid files, admin sockets) lives under DIR, starts one
#       mon, one memstore OSD (in memory, no disks) and radosgw (beast frontend
#       on 127.0.0.1:PORT; a free port is picked when PORT is omitted), creates
#       an S3 user and prints ONE line of JSON on stdout:
#         {"endpoint":"http://127.0.0.1:PORT","accessKeyId":"...",
#          "secretAccessKey":"...","region":"us-east-1","dir":"DIR"}
#       Installs radosgw/ceph-mon/ceph-osd with apt-get when they are missing
#       (needs root). No manager daemon is needed. Nothing is written to
#       /etc/ceph or /var/lib/ceph.
#
#   scripts/s3-radosgw.sh stop DIR
#       Stops the daemons started for DIR (found by their pid files) and waits
#       for them to exit. Idempotent. DIR (logs included) is left in place.
#
# Environment (all optional):
#   S3_RADOSGW_ACCESS_KEY / S3_RADOSGW_SECRET_KEY  fixed keys (default: random)
#   S3_RADOSGW_MEMSTORE_BYTES  memstore capacity (default 1 GiB)
#   S3_RADOSGW_TIMEOUT         seconds to wait for each step (default 120)
#
# Clusters in different DIRs with different ports can run side by side: the
# monitor port is picked free too, the OSD binds free ports in 6800-7300.
set -euo pipefail

PROG=$(basename "$0")
STEP_TIMEOUT=${S3_RADOSGW_TIMEOUT:-120}
MEMSTORE_BYTES=${S3_RADOSGW_MEMSTORE_BYTES:-1073741824}
REGION=us-east-1
CEPH_BINS=(radosgw radosgw-admin ceph-mon ceph-osd ceph ceph-authtool monmaptool)
# Daemon names in the order they are stopped.
DAEMONS=(client.rgw osd.0 mon.a)

die() {
  echo "$PROG: error: $*" >&2
  exit 1
}

usage() {
  cat >&2 <<EOF
usage: $PROG start DIR [PORT]
       $PROG stop DIR
EOF
  exit 2
}

# Print the last lines of a log file to stderr (for failure messages).
tail_log() {
  local f=$1
  if [[ -s $f ]]; then
    echo "---- last lines of $f ----" >&2
    tail -n "${2:-40}" "$f" >&2
    echo "----" >&2
  fi
}

abs_dir() {
  local d=$1
  mkdir -p -- "$d" || die "cannot create directory $d"
  (cd -- "$d" && pwd -P)
}

# True while pid runs (a zombie waiting to be reaped counts as gone).
alive() {
  local st
  kill -0 "$1" 2>/dev/null || return 1
  st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ $st != Z ]]
}

# pid of a daemon of this DIR if it is alive (and really ours), else nothing.
live_pid() {
  local dir=$1 name=$2 pidf pid
  pidf="$dir/run/$name.pid"
  [[ -s $pidf ]] || return 1
  pid=$(tr -dc '0-9' <"$pidf")
  [[ -n $pid ]] || return 1
  alive "$pid" || return 1
  # Guard against pid reuse: the process must have been started with our conf.
  if [[ -r /proc/$pid/cmdline ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$dir/ceph.conf" || return 1
  fi
  echo "$pid"
}

stop_cluster() {
  local dir=$1 name pid i
  [[ -d $dir/run ]] || return 0
  for name in "${DAEMONS[@]}"; do
    pid=$(live_pid "$dir" "$name") || { rm -f "$dir/run/$name.pid"; continue; }
    kill -TERM "$pid" 2>/dev/null || true
    # Bounded wait: 150 x 0.1 s, then SIGKILL.
    for ((i = 0; i < 150; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      echo "$PROG: $name (pid $pid) did not exit after SIGTERM; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do
        alive "$pid" || break
        sleep 0.1
      done
      alive "$pid" && die "$name (pid $pid) is still running"
    fi
    rm -f "$dir/run/$name.pid"
  done
  # Daemons whose pid file was never written or was lost (e.g. a start that was
  # killed half-way): only ceph-mon/ceph-osd/radosgw run with this DIR's conf.
  local p c cmd comm strays=()
  for p in /proc/[0-9]*; do
    c=
    read -r c 2>/dev/null <"$p/comm" || continue
    case $c in radosgw | ceph-osd | ceph-mon) ;; *) continue ;; esac
    cmd=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) || continue
    [[ $cmd == *"$dir/ceph.conf"* ]] && strays+=("$c:${p#/proc/}")
  done
  for comm in radosgw ceph-osd ceph-mon; do
    for c in "${strays[@]}"; do
      [[ ${c%%:*} == "$comm" ]] || continue
      pid=${c#*:}
      alive "$pid" || continue
      echo "$PROG: stopping $comm (pid $pid) of $dir, which had no pid file" >&2
      kill -TERM "$pid" 2>/dev/null || true
      for ((i = 0; i < 150; i++)); do
        alive "$pid" || break
        sleep 0.1
      done
      if alive "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 100; i++)); do
          alive "$pid" || break
          sleep 0.1
        done
      fi
      alive "$pid" && die "$comm (pid $pid) is still running"
    done
  done
  return 0
}

# EXIT trap during start: a failed start leaves no daemon behind.
CLEANUP_DIR=
cleanup_on_failure() {
  local rc=$?
  if [[ $rc -ne 0 && -n $CLEANUP_DIR ]]; then
    stop_cluster "$CLEANUP_DIR" >/dev/null 2>&1 || true
  fi
}

ensure_binaries() {
  local missing=() b log=$1
  for b in "${CEPH_BINS[@]}"; do
    command -v "$b" >/dev/null 2>&1 || missing+=("$b")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  [[ $(id -u) -eq 0 ]] || die "missing ${missing[*]}; run as root to install radosgw ceph-mon ceph-osd"
  echo "$PROG: installing radosgw ceph-mon ceph-osd (missing: ${missing[*]})" >&2
  local pkgs=(radosgw ceph-mon ceph-osd)
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >>"$log" 2>&1; then
    echo "$PROG: apt-get install failed; running apt-get update and retrying" >&2
    if ! { apt-get update -q >>"$log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >>"$log" 2>&1; }; then
      tail_log "$log"
      die "could not install ${pkgs[*]}"
    fi
  fi
  for b in "${CEPH_BINS[@]}"; do
    command -v "$b" >/dev/null 2>&1 || die "$b still missing after installing ${pkgs[*]}"
  done
}

# Print N distinct free TCP ports on 127.0.0.1 (sockets held open together so
# the ports differ from each other).
free_ports() {
  /usr/bin/python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# True if something already listens on (or holds) 127.0.0.1:PORT.
port_in_use() {
  ! /usr/bin/python3 - "$1" 2>/dev/null <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
EOF
}

# Print the HTTP status code of GET URL/ (000 when nothing answers).
http_status() {
  local url=$1 code
  if command -v curl >/dev/null 2>&1; then
    code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$url/" 2>/dev/null) || code=000
  else
    # shellcheck disable=SC2016 # $1 expands in the inner bash
    code=$(timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
      printf "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" >&3
      head -c 12 <&3' _ "${url##*:}" 2>/dev/null | sed -n 's/^HTTP\/1\.[01] \([0-9][0-9][0-9]\).*/\1/p') || code=
    [[ -n $code ]] || code=000
  fi
  echo "$code"
}

json_str() { # JSON string with \ and " escaped (enough for paths and keys)
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

rand_str() { # rand_str LENGTH CHARSET
  local out
  out=$(LC_ALL=C tr -dc "$2" </dev/urandom | head -c "$1") || true
  echo "$out"
}

start_cluster() {
  local dir=$1 port=${2:-}
  local conf="$dir/ceph.conf" setup_log="$dir/log/setup.log"

  if [[ -n $port ]]; then
    [[ $port =~ ^[0-9]+$ && $port -ge 1 && $port -le 65535 ]] || die "invalid PORT '$port'"
  fi
  if [[ -e $conf ]]; then
    local n
    for n in "${DAEMONS[@]}"; do
      if live_pid "$dir" "$n" >/dev/null; then
        die "a cluster is already running in $dir ($n); run '$PROG stop $dir' first"
      fi
    done
    # A stopped cluster from an earlier run: start over, removing only our files.
    rm -rf -- "$dir/ceph.conf" "$dir/keyring" "$dir/monmap" "$dir/mon" "$dir/osd" \
      "$dir/rgw" "$dir/run" "$dir/log" "$dir/crash"
  fi
  mkdir -p "$dir"/{mon,osd/osd.0,rgw,run,log,crash}
  : >"$setup_log"

  ensure_binaries "$setup_log"

  local mon_port rgw_port ports
  ports=$(free_ports 2) || die "could not pick free ports"
  read -r mon_port rgw_port <<<"$ports"
  if [[ -n $port ]]; then
    port_in_use "$port" && die "port $port on 127.0.0.1 is already in use"
    rgw_port=$port
    if [[ $mon_port == "$rgw_port" ]]; then
      read -r mon_port _ <<<"$(free_ports 2)"
      [[ $mon_port == "$rgw_port" ]] && read -r _ mon_port <<<"$(free_ports 2)"
    fi
  fi

  local fsid osd_uuid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  local access_key=${S3_RADOSGW_ACCESS_KEY:-$(rand_str 20 'A-Z0-9')}
  local secret_key=${S3_RADOSGW_SECRET_KEY:-$(rand_str 40 'A-Za-z0-9')}

  cat >"$conf" <<EOF
# Generated by $PROG for a throw-away test cluster. All state is under $dir.
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_port]
public network = 127.0.0.0/8
ms bind msgr1 = false
ms bind msgr2 = true
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $dir/keyring
run dir = $dir/run
crash dir = $dir/crash
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.\$pid.asok
mon cluster log file = $dir/log/cluster.log
log to stderr = false
err to stderr = true
client mount timeout = 30
# One OSD, no replication.
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim allowed = false
mon max pg per osd = 1000

[mon]
mon data = $dir/mon/\$name
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
mon data avail warn = 2
mon data avail crit = 1
# Commit cluster map changes at once instead of batching them for 1 s: RGW's
# pool creation at first start is a dozen map changes in a row.
paxos propose interval = 0.01
paxos min wait = 0.01

[osd]
osd data = $dir/osd/\$name
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
osd objectstore = memstore
memstore device bytes = $MEMSTORE_BYTES
osd crush initial weight = 1

[client.rgw]
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
rgw data = $dir/rgw
rgw frontends = beast endpoint=127.0.0.1:$rgw_port tcp_nodelay=1
EOF

  # Any failure from here on: stop what was started, show the relevant log.
  CLEANUP_DIR=$dir
  trap cleanup_on_failure EXIT
  trap 'echo "$PROG: interrupted; stopping the daemons started so far" >&2; exit 130' INT TERM

  fail() {
    echo "$PROG: error: $1" >&2
    tail_log "$setup_log" 20
    [[ -n ${2:-} ]] && tail_log "$2" 40
    exit 1
  }

  run() { # run a setup command, output to setup.log, bounded in time
    echo "+ [$(date +%T.%3N)] $*" >>"$setup_log"
    timeout "$STEP_TIMEOUT" "$@" >>"$setup_log" 2>&1
  }

  local C=(-c "$conf")
  local kr="$dir/keyring"
  # Keys: the monitor imports every key of this keyring at mkfs, so osd.0 and
  # client.rgw need no separate 'ceph auth' calls.
  run ceph-authtool "${C[@]}" --create-keyring "$kr" --gen-key -n mon. --cap mon 'allow *' ||
    fail "ceph-authtool failed"
  run ceph-authtool "${C[@]}" "$kr" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' ||
    fail "ceph-authtool failed"
  run ceph-authtool "${C[@]}" "$kr" --gen-key -n osd.0 \
    --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' ||
    fail "ceph-authtool failed"
  run ceph-authtool "${C[@]}" "$kr" --gen-key -n client.rgw \
    --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' ||
    fail "ceph-authtool failed"
  chmod 600 "$kr"

  # Monitor.
  run monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" ||
    fail "monmaptool failed"
  run ceph-mon "${C[@]}" --mkfs -i a --monmap "$dir/monmap" --keyring "$kr" ||
    fail "ceph-mon --mkfs failed" "$dir/log/mon.a.log"
  run ceph-mon "${C[@]}" -i a || fail "ceph-mon did not start" "$dir/log/mon.a.log"
  local i ok=
  for ((i = 0; i < 100; i++)); do
    if timeout 20 ceph "${C[@]}" --connect-timeout 10 mon stat >>"$setup_log" 2>&1; then ok=1; break; fi
    live_pid "$dir" mon.a >/dev/null || fail "ceph-mon exited" "$dir/log/mon.a.log"
    sleep 0.2
  done
  [[ -n $ok ]] || fail "monitor did not answer" "$dir/log/mon.a.log"

  # OSD (memstore: data lives in memory).
  local osd_id
  osd_id=$(timeout "$STEP_TIMEOUT" ceph "${C[@]}" osd new "$osd_uuid" 2>>"$setup_log") ||
    fail "ceph osd new failed" "$dir/log/mon.a.log"
  [[ $osd_id == 0 ]] || fail "unexpected osd id '$osd_id'"
  run ceph-osd "${C[@]}" -i 0 --mkfs --osd-uuid "$osd_uuid" ||
    fail "ceph-osd --mkfs failed" "$dir/log/osd.0.log"
  run ceph-osd "${C[@]}" -i 0 || fail "ceph-osd did not start" "$dir/log/osd.0.log"
  ok=
  local st
  for ((i = 0; i < 150; i++)); do
    st=$(timeout 20 ceph "${C[@]}" --connect-timeout 10 osd stat -f json 2>>"$setup_log") || st=
    if [[ $st =~ \"num_up_osds\":1[,}] && $st =~ \"num_in_osds\":1[,}] ]]; then ok=1; break; fi
    live_pid "$dir" osd.0 >/dev/null || fail "ceph-osd exited" "$dir/log/osd.0.log"
    sleep 0.2
  done
  [[ -n $ok ]] || fail "osd.0 did not come up" "$dir/log/osd.0.log"

  # RGW (creates its pools on first start).
  run radosgw "${C[@]}" -n client.rgw || fail "radosgw did not start" "$dir/log/client.rgw.log"
  local url="http://127.0.0.1:$rgw_port" code
  ok=
  for ((i = 0; i < 600; i++)); do
    code=$(http_status "$url")
    if [[ $code =~ ^[2-5][0-9][0-9]$ ]]; then ok=1; break; fi
    live_pid "$dir" client.rgw >/dev/null || fail "radosgw exited" "$dir/log/client.rgw.log"
    sleep 0.2
  done
  [[ -n $ok ]] || fail "radosgw did not answer on $url" "$dir/log/client.rgw.log"
  echo "[$(date +%T.%3N)] radosgw answered HTTP $code on attempt $((i + 1))" >>"$setup_log"

  run radosgw-admin "${C[@]}" user create --uid=test --display-name="test user" \
    --access-key="$access_key" --secret-key="$secret_key" ||
    fail "radosgw-admin user create failed" "$dir/log/client.admin.log"

  # Authenticated check is left to the client; one more unauthenticated probe
  # proves the frontend is still up after the user was created.
  code=$(http_status "$url")
  [[ $code =~ ^[2-5][0-9][0-9]$ ]] || fail "radosgw stopped answering on $url" "$dir/log/client.rgw.log"

  trap - EXIT INT TERM
  printf '{"endpoint":%s,"accessKeyId":%s,"secretAccessKey":%s,"region":%s,"dir":%s}\n' \
    "$(json_str "$url")" "$(json_str "$access_key")" "$(json_str "$secret_key")" \
    "$(json_str "$REGION")" "$(json_str "$dir")"
}

main() {
  [[ $# -ge 2 ]] || usage
  local cmd=$1 dir
  case $cmd in
    start)
      [[ $# -le 3 ]] || usage
      dir=$(abs_dir "$2")
      start_cluster "$dir" "${3:-}"
      ;;
    stop)
      [[ $# -eq 2 ]] || usage
      [[ -d $2 ]] || exit 0
      dir=$(cd -- "$2" && pwd -P)
      stop_cluster "$dir"
      ;;
    *) usage ;;
  esac
}

main "$@"
