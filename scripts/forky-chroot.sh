# Shared by scripts/test-cpython.sh and scripts/build-cpython314t.sh
# (sourced, not run): a Debian testing ("forky") chroot made with
# debootstrap, the host's Rust toolchain and this checkout bind-mounted
# into it, and every mount undone on exit.
#
# Debian testing is the one place Debian ships both python3.13 and
# python3.14 (with -dev and -venv), so one chroot serves every version the
# scripts test; each version gets its own venv and cargo target dir there.
#
# The caller sets SRC (the checkout) and ROOT (the chroot directory), then
# calls forky_init (which also mounts /proc and /dev), forky_install and
# forky_mount, then forky_run.

# The Debian mirror this machine's apt already uses (read from its
# sources, deb822 or one-line), so that no mirror is named here;
# DEBIAN_MIRROR overrides it.
forky_host_mirror() {
    local uri
    uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '{print $2}' | grep -E '/debian/?$' | head -n 1 || true)
    if [ -z "$uri" ]; then
        uri=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
            | awk '{print $2}' | grep -E '/debian/?$' | head -n 1 || true)
    fi
    echo "${uri%/}"
}
MIRROR=${DEBIAN_MIRROR:-$(forky_host_mirror)}
if [ -z "$MIRROR" ]; then
    echo "forky-chroot: no Debian mirror in this machine's apt sources; set DEBIAN_MIRROR" >&2
    exit 1
fi
# The mirror may serve Release files past their Valid-Until date.
APT=(apt-get -o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false)

forky_mounts=()

forky_unmount_all() {
    local i
    for ((i = ${#forky_mounts[@]} - 1; i >= 0; i--)); do
        # A process left behind in the chroot (gpg-agent, a hung test) keeps
        # a mount busy: detach it lazily rather than leave it mounted.
        umount "${forky_mounts[$i]}" 2>/dev/null || umount -l "${forky_mounts[$i]}" || true
    done
    forky_mounts=()
}

# Mounts under $ROOT left by a run that was killed (SIGKILL skips traps),
# deepest first. They must go before anything is removed or re-mounted.
forky_stale_mounts() {
    awk -v r="$ROOT/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r
}

# Root check, lock, stale mounts, and the chroot itself (made if missing).
forky_init() {
    if [ "$(id -u)" != 0 ]; then
        echo "$0: needs root (debootstrap, chroot and bind mounts)" >&2
        exit 1
    fi
    mkdir -p "$(dirname "$ROOT")"
    # Two runs on one chroot would unmount each other's mounts: serialise.
    exec 9>"$ROOT.lock"
    if ! flock -n 9; then
        echo "waiting for another run on $ROOT to finish ($ROOT.lock)"
        flock 9
    fi
    trap forky_unmount_all EXIT
    # Make a signal end the script through the EXIT trap.
    trap 'exit 130' INT
    trap 'exit 143' TERM
    local m
    while read -r m; do
        [ -n "$m" ] && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done < <(forky_stale_mounts)

    # debootstrap removes $ROOT/debootstrap when it has finished, so its
    # presence means an interrupted bootstrap: start that one again.
    if [ -d "$ROOT/debootstrap" ]; then
        if [ -n "$(forky_stale_mounts)" ]; then
            echo "$0: $ROOT is half-made and still has mounts under it; not removing it" >&2
            exit 1
        fi
        echo "removing the interrupted bootstrap in $ROOT"
        rm -rf --one-file-system "$ROOT"
    fi
    if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
        if [ -e "$ROOT" ] && [ -n "$(ls -A "$ROOT")" ]; then
            echo "$0: $ROOT is not empty and not a Debian chroot; give another directory" >&2
            exit 1
        fi
        # A fresh machine: install debootstrap rather than skip the check.
        if ! command -v debootstrap >/dev/null; then
            echo "installing debootstrap on this machine"
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
        fi
        mkdir -p "$ROOT"
        # Older debootstrap releases have no "forky" script; testing is
        # bootstrapped like sid.
        debootstrap --variant=minbase forky "$ROOT" "$MIRROR" /usr/share/debootstrap/scripts/sid
    fi
    cp /etc/resolv.conf "$ROOT/etc/"
    # apt, dpkg's maintainer scripts and the tests need /proc and /dev
    # (/dev/pts for apt's log).
    forky_bind /proc "$ROOT/proc"
    forky_bind /dev "$ROOT/dev"
    forky_bind /dev/pts "$ROOT/dev/pts"
    # The host's CA bundle (it may hold a proxy's certificate), where
    # Debian's ca-certificates package will not overwrite it.
    cp "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$ROOT/etc/host-ca.crt"
}

# Install the Debian packages that are missing from the chroot (apt's lists
# are refreshed only when something has to be installed).
forky_install() {
    local missing=() p
    for p in "$@"; do
        chroot "$ROOT" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing in the chroot: ${missing[*]}"
    chroot "$ROOT" "${APT[@]}" update -qq
    chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y -qq "${missing[@]}"
}

forky_bind() {
    mkdir -p "$2"
    mount --bind "$1" "$2"
    forky_mounts+=("$2")
}

# The host's Rust toolchain (rustup's and cargo's homes, so the chroot
# builds with the same compiler and crate cache) and the checkout at /src.
forky_mount() {
    forky_bind "${CARGO_HOME:-$HOME/.cargo}" "$ROOT/root/.cargo"
    forky_bind "${RUSTUP_HOME:-$HOME/.rustup}" "$ROOT/root/.rustup"
    forky_bind "$SRC" "$ROOT/src"
}

# Run a command in the chroot with a clean environment (nothing of the
# host's Python or virtualenv leaks in); proxy settings pass through.
forky_run() {
    local pass=() v
    for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
        [ -n "${!v:-}" ] && pass+=("$v=${!v}")
    done
    chroot "$ROOT" env -i HOME=/root LANG=C.UTF-8 PATH=/root/.cargo/bin:/usr/bin:/bin \
        PIP_CERT=/etc/host-ca.crt SSL_CERT_FILE=/etc/host-ca.crt \
        CARGO_HTTP_CAINFO=/etc/host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
        PYTHONDONTWRITEBYTECODE=1 "${pass[@]}" "$@"
}
