#!/usr/bin/env bash
# Starts or stops the LibreSpeed test server (tests/librespeed) on loopback,
# the same nginx + php-fpm setup the internet stage's tests use.
#
#   scripts/librespeed-server.sh start DIR [HTTP_PORT [HTTPS_PORT]]
#   scripts/librespeed-server.sh stop DIR
#
# `start` makes DIR (configs, a throwaway CA in DIR/ca.crt, logs), starts
# both servers in the background and prints the backend URLs. Needs Debian's
# nginx, php-fpm and openssl packages.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
files=$root/tests/librespeed

case "${1:-}" in
start)
  dir=$(mkdir -p "$2" && cd "$2" && pwd)
  http_port=${3:-8080}
  https_port=${4:-8443}
  nginx=/usr/sbin/nginx
  php_fpm=$(ls /usr/sbin/php-fpm* 2>/dev/null | sort | tail -n 1)
  if [ ! -x "$nginx" ] || [ -z "$php_fpm" ]; then
    echo "nginx or php-fpm is missing: apt-get install -y nginx php-fpm openssl" >&2
    exit 1
  fi
  sh "$files/make-certs.sh" "$dir"
  if [ "$(id -u)" = 0 ]; then nginx_user="user root;"; fpm_user=$'user = root\ngroup = root'; root_flag=--allow-to-run-as-root
  else nginx_user=""; fpm_user=""; root_flag=""; fi
  for t in nginx php-fpm; do
    text=$(<"$files/$t.conf.in")
    text=${text//@DIR@/$dir}
    text=${text//@ROOT@/$files}
    text=${text//@HTTP_PORT@/$http_port}
    text=${text//@HTTPS_PORT@/$https_port}
    text=${text//@NGINX_USER@/$nginx_user}
    text=${text//@FPM_USER@/$fpm_user}
    printf '%s\n' "$text" >"$dir/$t.conf"
  done
  rm -f "$dir/php-fpm.sock"
  "$php_fpm" --nodaemonize --fpm-config "$dir/php-fpm.conf" $root_flag >"$dir/php-fpm.out" 2>&1 &
  echo $! >"$dir/php-fpm.master"
  "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" >"$dir/nginx.out" 2>&1 &
  echo $! >"$dir/nginx.master"
  for _ in $(seq 100); do
    if [ -S "$dir/php-fpm.sock" ] && curl -s -o /dev/null "http://127.0.0.1:$http_port/backend/empty.php"; then
      echo "http://127.0.0.1:$http_port/backend/"
      echo "https://127.0.0.1:$https_port/backend/ (CA: $dir/ca.crt)"
      exit 0
    fi
    sleep 0.1
  done
  echo "the server did not start; see $dir/*.out and $dir/*.log" >&2
  "$0" stop "$dir"
  exit 1
  ;;
stop)
  dir=$2
  for p in nginx php-fpm; do
    if [ -f "$dir/$p.master" ]; then
      kill "$(cat "$dir/$p.master")" 2>/dev/null || true
      rm -f "$dir/$p.master"
    fi
  done
  ;;
*)
  sed -n '2,10p' "$0" >&2
  exit 2
  ;;
esac
