#!/usr/bin/env bash
# Start or stop a Docker engine by hand (machines without systemd), from Debian's packages.
#   containers/dockerd.sh install   apt-get install docker.io and mmdebstrap where missing
#   containers/dockerd.sh start     start dockerd unless one already answers; waits until it does
#   containers/dockerd.sh stop      stop the dockerd that `start` started (by its PID), if any
# State (PID file, log) lives in ${KBX_CACHE:-~/.cache/kbx}/dockerd; an engine this script did not start is
# used as it is and never stopped.
set -euo pipefail
state=${KBX_CACHE:-$HOME/.cache/kbx}/dockerd
mkdir -p "$state"
pidfile=$state/dockerd.pid

answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

case "${1:-}" in
  install)
    missing=()
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
    command -v docker >/dev/null || missing+=(docker.io)
    if [ ${#missing[@]} -gt 0 ]; then
      echo "dockerd.sh: installing ${missing[*]} from Debian's packages" >&2
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi ;;
  start)
    if answers; then
      echo "dockerd.sh: an engine already answers; using it" >&2
      exit 0
    fi
    dockerd --pidfile "$pidfile" >"$state/dockerd.log" 2>&1 &
    for _ in $(seq 60); do
      if answers; then
        echo "dockerd.sh: dockerd $(cat "$pidfile") started (log: $state/dockerd.log)" >&2
        exit 0
      fi
      sleep 1
    done
    echo "dockerd.sh: dockerd did not answer within 60 s; its log:" >&2
    tail -20 "$state/dockerd.log" >&2
    exit 1 ;;
  stop)
    if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      pid=$(cat "$pidfile")
      kill "$pid"
      for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      echo "dockerd.sh: dockerd $pid stopped" >&2
    fi ;;
  *)
    echo "usage: $0 install|start|stop" >&2
    exit 2 ;;
esac
