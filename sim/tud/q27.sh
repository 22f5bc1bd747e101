# Sourced by generate.sh and record-board.sh: the pinned checkout of Queens@TUD's VHDL
# (https://github.com/preusser/q27, commit c8df61d; not part of this repository) and the
# tools both need. Sets root, queens, commit and q27; `$1` is the checkout (cloned into
# target/q27 when not given), `$2` a file the checkout must hold, `$3` what the caller is.
if ! command -v ghdl >/dev/null 2>&1; then
    echo "$3: ghdl not found: apt-get install ghdl (Debian 12's 2.0.0+dfsg-6.2+b2 made the files here)" >&2
    exit 127
fi
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
queens=${QUEENS:-$root/target/release/queens}
commit=c8df61d
q27=${1:-$root/target/q27}
if [ ! -d "$q27/.git" ] && [ ! -f "$q27/$2" ]; then
    git clone --quiet https://github.com/preusser/q27 "$q27"
fi
if [ -d "$q27/.git" ]; then
    git -C "$q27" checkout --quiet "$commit"
fi
