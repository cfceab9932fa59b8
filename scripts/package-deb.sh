#!/usr/bin/env bash
# Builds the Debian package of the DropTrack server with dpkg-deb:
#   scripts/package-deb.sh [BINARY] [OUTDIR]
# BINARY defaults to a release build made here with the Swift runtime linked in statically
# (`swift build -c release --product droptrack -Xswiftc -static-stdlib`; linking FoundationNetworking
# statically needs libcurl4-openssl-dev), so the package depends only on Debian's own libraries. It is
# linked by the toolchain's lld with relative relocations packed (`-z pack-relative-relocs`, DT_RELR,
# glibc 2.36 or later): the loader reads 16 KB of them at start instead of gold's 2 MB, which stayed
# resident (docs/explanation/scaling.md, "Idle footprint"). OUTDIR defaults to .build/deb. Prints the .deb's path last.
#
# Contents: /usr/bin/droptrack; the systemd unit /lib/systemd/system/droptrack.service; the
# configuration /etc/droptrack/droptrack.json (a conffile) with /etc/droptrack/keys for the APNs and
# FCM keys and /etc/default/droptrack (a conffile) for DROPTRACK_* overrides; the sample production
# configuration, the README and docs/ under /usr/share/doc/droptrack/; postinst makes the `droptrack`
# system user and /var/lib/droptrack (0750), where the SQLite store lives.
#
# Depends: every shared library the binary loads (ldd) that a Debian package owns, found by
# dpkg-shlibdeps (versioned). A binary that still loads the Swift runtime from the toolchain (a
# debug build, which the tests pass to stay fast) gets those libraries shipped in
# /usr/lib/droptrack/swift and /usr/bin/droptrack becomes a wrapper that points the loader at them.
# Any other library no package owns is an error.
set -euo pipefail
cd "$(dirname "$0")/.."
root_dir=$(pwd)
binary=${1:-}
outdir=${2:-.build/deb}
if [ -z "$binary" ]; then
  echo "== release build (static Swift runtime)" >&2
  swift build -c release --product droptrack -Xswiftc -static-stdlib -Xswiftc -use-ld=lld \
    -Xlinker -z -Xlinker pack-relative-relocs >&2
  binary=$(swift build -c release --show-bin-path)/droptrack
fi
[ -x "$binary" ] || { echo "package-deb: $binary is not an executable" >&2; exit 1; }
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

version=$("$binary" --version | awk '{print $NF}')
version=${version#v}
case "$version" in [0-9]*) ;; *) echo "package-deb: cannot read a version from '$binary --version'" >&2; exit 1 ;; esac
arch=$(dpkg --print-architecture)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/droptrack
install -d -m 0755 "$stage/DEBIAN" "$stage/usr/bin" "$stage/lib/systemd/system" "$stage/etc/droptrack" \
  "$stage/etc/default" "$stage/usr/share/doc/droptrack"
install -d -m 0700 "$stage/etc/droptrack/keys"

# The libraries the binary loads: Debian's (-> Depends) and, for a non-static build, Swift's own.
swift_libs=()
while read -r name path; do
  [ -n "$path" ] || continue
  if dpkg -S "$(readlink -f "$path")" >/dev/null 2>&1 || dpkg -S "$path" >/dev/null 2>&1; then
    continue
  fi
  case "$path" in
    */lib/swift/linux/*) swift_libs+=("$path") ;;
    *) echo "package-deb: $name ($path) belongs to no Debian package; cannot depend on it" >&2; exit 1 ;;
  esac
done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
if [ "${#swift_libs[@]}" -gt 0 ]; then
  echo "package-deb: $(basename "$binary") loads the Swift runtime dynamically; shipping ${#swift_libs[@]} libraries in /usr/lib/droptrack/swift" >&2
  install -d -m 0755 "$stage/usr/lib/droptrack/swift"
  for lib in "${swift_libs[@]}"; do
    install -m 0644 "$lib" "$stage/usr/lib/droptrack/swift/"
  done
  install -m 0755 "$binary" "$stage/usr/lib/droptrack/droptrack"
  cat > "$stage/usr/bin/droptrack" <<'EOF'
#!/bin/sh
# The Swift runtime this build needs ships with the package (a release build links it statically).
LD_LIBRARY_PATH=/usr/lib/droptrack/swift${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec /usr/lib/droptrack/droptrack "$@"
EOF
  chmod 0755 "$stage/usr/bin/droptrack"
  shlib_target=$stage/usr/lib/droptrack/droptrack
  shlib_extra=(-l"$stage/usr/lib/droptrack/swift")
else
  install -m 0755 "$binary" "$stage/usr/bin/droptrack"
  strip --strip-unneeded "$stage/usr/bin/droptrack"   # as dh_strip would; symbols stay in the build tree
  shlib_target=$stage/usr/bin/droptrack
  shlib_extra=()
fi

# dpkg-shlibdeps reads debian/control from the current directory.
mkdir -p "$work/src/debian"
printf 'Source: droptrack\n\nPackage: droptrack\nArchitecture: any\n' > "$work/src/debian/control"
# A shipped Swift runtime is analysed too: it brings in libstdc++6, libgcc-s1 and the like.
shipped=()
[ "${#swift_libs[@]}" -gt 0 ] && shipped=("$stage"/usr/lib/droptrack/swift/*.so*)
depends=$(cd "$work/src" && dpkg-shlibdeps -O --ignore-missing-info "${shlib_extra[@]}" \
  "$shlib_target" "${shipped[@]}" 2>"$work/shlibdeps.err" | sed -n 's/^shlibs:Depends=//p') || {
  cat "$work/shlibdeps.err" >&2; exit 1; }
[ -n "$depends" ] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; cat "$work/shlibdeps.err" >&2; exit 1; }
# Packed relative relocations (DT_RELR, the default build's lld flag) need glibc 2.36, a symbol
# version dpkg-shlibdeps has no floor for: raise libc6's to it, or an older glibc fails at exec.
if readelf -V "$shlib_target" | grep -q GLIBC_ABI_DT_RELR; then
  floor=$(printf '%s' "$depends" | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')
  if [ -n "$floor" ] && dpkg --compare-versions "$floor" lt 2.36; then
    depends=$(printf '%s' "$depends" | sed "s/libc6 (>= $floor)/libc6 (>= 2.36)/")
  fi
fi
depends="$depends, adduser"

install -m 0644 packaging/deb/droptrack.service "$stage/lib/systemd/system/droptrack.service"
install -m 0600 packaging/deb/droptrack.json "$stage/etc/droptrack/droptrack.json"
install -m 0640 packaging/deb/default "$stage/etc/default/droptrack"
install -m 0644 packaging/deb/droptrack.production.json "$stage/usr/share/doc/droptrack/droptrack.production.json"
install -m 0644 README.md "$stage/usr/share/doc/droptrack/README.md"
# The README links into docs/; the package carries the pages so those links work where it is installed.
(cd docs && find . -type d -exec install -d -m 0755 "$stage/usr/share/doc/droptrack/docs/{}" \; \
  && find . -type f -name '*.md' -exec install -m 0644 {} "$stage/usr/share/doc/droptrack/docs/{}" \;)
printf 'droptrack (%s) unstable; urgency=medium\n\n  * Built by scripts/package-deb.sh.\n\n -- DropTrack maintainers <droptrack@example.invalid>  %s\n' \
  "$version" "$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")" \
  | gzip -9n > "$stage/usr/share/doc/droptrack/changelog.gz"
chmod 0644 "$stage/usr/share/doc/droptrack/changelog.gz"
install -m 0644 packaging/deb/copyright "$stage/usr/share/doc/droptrack/copyright"
for script in postinst prerm postrm; do
  install -m 0755 "packaging/deb/$script" "$stage/DEBIAN/$script"
done
printf '/etc/droptrack/droptrack.json\n/etc/default/droptrack\n' > "$stage/DEBIAN/conffiles"
chmod 0644 "$stage/DEBIAN/conffiles"
installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<EOF
Package: droptrack
Version: $version
Architecture: $arch
Maintainer: DropTrack maintainers <droptrack@example.invalid>
Installed-Size: $installed_size
Depends: $depends
Section: net
Priority: optional
Homepage: https://example.invalid/droptrack
Description: keeps iOS Live Activities and Android Live Updates current
 DropTrack's dispatch server (droptrack serve) sends Live Activity pushes through APNs and Live
 Update data messages through FCM with each app's own credentials, keeps its outbox in SQLite or
 PostgreSQL so a crash loses nothing, and names the silent failures. Runs as the droptrack user
 under systemd (droptrack.service); configuration in /etc/droptrack/droptrack.json.
EOF
chmod 0644 "$stage/DEBIAN/control"

deb=$outdir/droptrack_${version}_${arch}.deb
# PACKAGE_DEB_COMPRESSION: xz (the default, Debian's), gzip or none (the test's, to stay fast).
dpkg-deb --root-owner-group -Z"${PACKAGE_DEB_COMPRESSION:-xz}" --build "$stage" "$deb" >&2
cd "$root_dir"
echo "$deb"
