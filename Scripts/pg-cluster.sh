#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests.
#
#   Scripts/pg-cluster.sh start DIR   initdb in DIR, start on 127.0.0.1 and a free
#                                     port, print the postgres:// URL (also in DIR/url)
#   Scripts/pg-cluster.sh stop DIR    stop it and delete DIR
#
# Trust authentication on loopback only, and no fsync: the data lives as long as
# one test run. initdb refuses to run as root, so as root the cluster belongs to
# an unprivileged user (PG_CLUSTER_USER, default nobody).
set -euo pipefail

command=${1:-}
dir=${2:-}
if [[ -z $command || -z $dir ]]; then
    echo "usage: $0 start|stop DIR" >&2
    exit 2
fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [[ -z $bindir || ! -x $bindir/initdb ]]; then
    bindir=$(dirname "$(command -v initdb || echo /nonexistent/initdb)")
fi
[[ -x $bindir/initdb ]] || { echo "$0: no initdb found (install postgresql)" >&2; exit 1; }

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u "${PG_CLUSTER_USER:-nobody}" -- "$@"
    else
        "$@"
    fi
}

case $command in
start)
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown "${PG_CLUSTER_USER:-nobody}" "$dir"; fi
    port=${PG_CLUSTER_PORT:-}
    if [[ -z $port ]]; then
        # The first port nothing answers on.
        for candidate in $(seq 5433 5499); do
            if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
        done
    fi
    [[ -n $port ]] || { echo "$0: no free port in 5433-5499" >&2; exit 1; }
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    url="postgres://postgres@127.0.0.1:$port/postgres"
    echo "$url" >"$dir/url"
    echo "$url"
    ;;
stop)
    if [[ -d $dir/data ]]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
