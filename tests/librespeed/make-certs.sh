#!/bin/sh
# Makes a throwaway CA and a server certificate for 127.0.0.1 and localhost
# in the folder given, for the LibreSpeed test server:
#   ca.crt (pass it to the collector's --internet-ca-cert), server.crt, server.key
set -eu
dir=$1
cd "$dir"
curve="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
# shellcheck disable=SC2086
openssl req -x509 $curve -nodes -keyout ca.key -out ca.crt -days 2 \
  -subj "/CN=runner-bench test CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
# shellcheck disable=SC2086
openssl req -new $curve -nodes -keyout server.key -out server.csr \
  -subj "/CN=127.0.0.1" 2>/dev/null
cat > server.ext <<'EXT'
subjectAltName=IP:127.0.0.1,DNS:localhost
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
EXT
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
  -out server.crt -days 2 -extfile server.ext 2>/dev/null
