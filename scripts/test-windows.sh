#!/usr/bin/env bash
# The collector on Windows, from Linux: cross-builds it for
# x86_64-pc-windows-gnu with mingw-w64, runs clippy for that target with
# warnings denied, runs its unit tests under Wine, then one quick CPU stage
# whose result must record the thread pinned in processor group 0.
#
# Wine runs the Windows code paths (affinity, processor groups, unbuffered
# files), not Windows: it honours thread affinity (it sets the Linux
# thread's mask) but ignores FILE_FLAG_NO_BUFFERING, so disk figures under
# Wine are the page cache's. The CI's windows-latest job runs the same code
# on Windows itself.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-pc-windows-gnu
need=()
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
command -v wine >/dev/null || need+=(wine wine64)
if [ "${#need[@]}" -gt 0 ]; then
  echo "==> installing ${need[*]}"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else sudo apt-get update -qq && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; fi
fi
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target"
fi

export WINEDEBUG=-all
export WINEPREFIX="${WINEPREFIX:-$HOME/.wine}"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
[ -d "$WINEPREFIX/drive_c/windows/system32" ] || wineboot --init >/dev/null 2>&1
# Rust's std imports ProcessPrng from bcryptprimitives.dll, which Wine before
# 9.0 lacks (Debian 12 has 8.0): a stand-in over RtlGenRandom.
prng="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -e "$prng" ]; then
  echo "==> bcryptprimitives.dll stand-in for this Wine"
  tmp=$(mktemp -d)
  cat > "$tmp/prng.c" <<'EOF'
#include <windows.h>
#include <ntsecapi.h>
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
EOF
  printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\n    ProcessPrng\n' > "$tmp/prng.def"
  x86_64-w64-mingw32-gcc -shared -O2 -o "$prng" "$tmp/prng.c" "$tmp/prng.def" -ladvapi32
  rm -rf "$tmp"
fi

echo "==> cargo build --target $target"
cargo build --target "$target" -p collector --locked
echo "==> cargo clippy --target $target (warnings denied)"
cargo clippy --target "$target" -p collector --all-targets --locked -- -D warnings
# The unit tests, skipping as the CI's windows-latest job does those that
# start Linux servers (the internet stage's nginx and php-fpm, Azurite), and
# also the build-identity test, which expects a native build's flags where
# this cross build has mingw's defaults (the windows-latest job runs it).
echo "==> cargo test --target $target, under Wine"
cargo test --target "$target" -p collector --bins --locked -- --skip stage::internet:: --skip azurite \
  --skip stage::cpu::coremark::tests::build_identity_is_recorded
# This one narrows the whole process's affinity: it runs alone.
cargo test --target "$target" -p collector --bins --locked -- --ignored --exact \
  platform::affinity::tests::threads_started_under_a_process_pin_are_pinned

echo "==> collector.exe run --stages cpu, under Wine"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
exe="${CARGO_TARGET_DIR:-target}/$target/debug/collector.exe"
wine "$exe" run --profile quick --stages cpu --provider local --runner dev-windows-x64 \
  --out "$(winepath -w "$out/result.json")"
samples=$(tr -d ' \r\n' < "$out/result.json" | grep -o '"affinity":{[^}]*}')
echo "$samples"
if [ "$(grep -c '"mode":"pinned","cpu":[0-9]*,"group":0}' <<<"$samples")" != 3 ]; then
  echo "expected three samples pinned in processor group 0" >&2
  exit 1
fi
