#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS (with JetStream) answer on their local ports, starting
# whichever is down with the machine's own packages. Used by CI; harmless when all are up.
set -uo pipefail

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() { # name port
  for _ in $(seq 1 60); do up "$2" && return 0; sleep 0.5; done
  echo "ensure-infra: $1 did not come up on 127.0.0.1:$2" >&2
  return 1
}

if ! up 5432; then
  echo "ensure-infra: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  wait_for PostgreSQL 5432 || exit 1
fi
if ! up 6379; then
  echo "ensure-infra: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis 6379 || exit 1
fi
if ! up 4222; then
  echo "ensure-infra: starting NATS with JetStream"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_for NATS 4222 || exit 1
fi
echo "ensure-infra: PostgreSQL, Redis and NATS are up"
