#!/usr/bin/env bash
# Builds the DropTrack server's container image with buildah, from an empty base:
#   scripts/package-oci.sh [BINARY] [IMAGE] [ARCHIVE]
# BINARY defaults to the release build the Debian package uses (the Swift runtime linked in statically;
# see scripts/package-deb.sh). IMAGE defaults to localhost/droptrack:<version>. With ARCHIVE, the image is
# also written there as a docker-archive file (`podman load -i ARCHIVE` on another machine). Prints the
# image's name last.
#
# Contents, and nothing else: /usr/bin/droptrack; every shared library it loads, at the path the loader
# found it (Debian's libssl, libpq, libcurl…, glibc and its loader; for a debug build the Swift runtime
# too); Debian's CA bundle where OpenSSL looks for it; /etc/passwd and /etc/group naming the
# `droptrack` user (uid and gid 10001); /etc/droptrack/droptrack.json (listen on 0.0.0.0:8787 inside the
# container, SQLite in /var/lib/droptrack, no apps); /var/lib/droptrack (0750, the user's) as a volume.
# No shell, no package manager. It runs as 10001, is configured by a mounted file and by DROPTRACK_*
# variables as the Debian package is, stops on SIGTERM (draining), and checks its health with
# `droptrack health` (GET /readyz).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-}
if [ -z "$binary" ]; then
  echo "== release build (static Swift runtime)" >&2
  swift build -c release --product droptrack -Xswiftc -static-stdlib -Xswiftc -use-ld=lld \
    -Xlinker -z -Xlinker pack-relative-relocs >&2
  binary=$(swift build -c release --show-bin-path)/droptrack
fi
[ -x "$binary" ] || { echo "package-oci: $binary is not an executable" >&2; exit 1; }
for tool in buildah ldd tar; do
  command -v "$tool" >/dev/null || { echo "package-oci: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
version=$("$binary" --version | awk '{print $NF}')
case "$version" in [0-9]*) ;; *) echo "package-oci: cannot read a version from '$binary --version'" >&2; exit 1 ;; esac
image=${2:-localhost/droptrack:$version}
archive=${3:-}
bundle=/etc/ssl/certs/ca-certificates.crt
[ -r "$bundle" ] || { echo "package-oci: $bundle is missing (apt-get install ca-certificates)" >&2; exit 1; }

work=$(mktemp -d)
container=
cleanup() {
  [ -n "$container" ] && buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
root=$work/root
install -d -m 0755 "$root/usr/bin" "$root/etc/droptrack" "$root/etc/ssl/certs" "$root/usr/lib/ssl" "$root/tmp" \
  "$root/var/lib"
chmod 1777 "$root/tmp"
install -m 0755 "$binary" "$root/usr/bin/droptrack"

# The loader and every library, where the loader found them (a debug build's RUNPATH names the toolchain's
# folder, so the Swift runtime goes there too).
while read -r path; do
  install -D -m 0755 "$(readlink -f "$path")" "$root$path"
done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)
[ -n "$(find "$root" -name 'ld-linux*' -print -quit)" ] || { echo "package-oci: no dynamic loader found by ldd" >&2; exit 1; }

# OpenSSL's default paths on Debian lead to Debian's bundle (SSL_CTX_set_default_verify_paths reads them).
install -m 0644 "$bundle" "$root/etc/ssl/certs/ca-certificates.crt"
ln -s /etc/ssl/certs/ca-certificates.crt "$root/usr/lib/ssl/cert.pem"
ln -s /etc/ssl/certs "$root/usr/lib/ssl/certs"

printf 'root:x:0:0:root:/root:/usr/sbin/nologin\ndroptrack:x:10001:10001:DropTrack:/var/lib/droptrack:/usr/sbin/nologin\n' \
  >"$root/etc/passwd"
printf 'root:x:0:\ndroptrack:x:10001:\n' >"$root/etc/group"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
chmod 0644 "$root/etc/passwd" "$root/etc/group" "$root/etc/nsswitch.conf"
cat >"$root/etc/droptrack/droptrack.json" <<'EOF'
{
  "listen": "0.0.0.0:8787",
  "store": "sqlite:/var/lib/droptrack/droptrack.sqlite",
  "maxConnectionsPerClient": 1000,
  "logLevel": "info",
  "apps": []
}
EOF
chmod 0644 "$root/etc/droptrack/droptrack.json"
install -d -m 0750 -o 10001 -g 10001 "$root/var/lib/droptrack"
tar --numeric-owner -C "$root" -cf "$work/root.tar" .

# The docker format: OCI's image format has no place for a health check.
export BUILDAH_FORMAT=docker
container=$(buildah from scratch)
buildah add "$container" "$work/root.tar" / >/dev/null
buildah config \
  --user 10001:10001 --workingdir /var/lib/droptrack \
  --env DROPTRACK_CONFIG=/etc/droptrack/droptrack.json --env SWIFT_BACKTRACE=enable=no \
  --entrypoint '["/usr/bin/droptrack"]' --cmd '["serve"]' \
  --port 8787/tcp --volume /var/lib/droptrack --stop-signal SIGTERM \
  --healthcheck 'CMD /usr/bin/droptrack health' --healthcheck-interval 10s --healthcheck-timeout 5s \
  --healthcheck-start-period 10s --healthcheck-retries 3 \
  --label org.opencontainers.image.title=droptrack \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.description="DropTrack: keeps iOS Live Activities and Android Live Updates current" \
  "$container"
buildah commit --quiet --format docker --rm "$container" "$image" >/dev/null
container=
if [ -n "$archive" ]; then
  rm -f "$archive"
  buildah push --quiet "$image" "docker-archive:$archive:$image" >/dev/null
fi
echo "$image"
