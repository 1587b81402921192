#!/bin/sh
# Installs the build into a scratch DESTDIR and builds a user's program
# against the installed copy only: every public header on its own, then
# tests/install/consumer.c through pkg-config (C11, pedantic, warnings as
# errors; also as C++ when a C++ compiler is on the PATH), and runs it.
#   install_consumer.sh BUILD_DIR SOURCE_DIR "CC [FLAGS]" ["SANITIZER FLAGS"]
# The sanitizer flags (a build with b_sanitize) go to the C program, which
# needs their runtimes; the C++ build is then left out (c++ may not be the
# compiler those runtimes came with).
set -eu
build=$1
src=$2
cc=$3
san=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dest=$work/dest

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet > "$work/install.log" 2>&1 || {
    cat "$work/install.log"
    echo "install_consumer: meson install failed"
    exit 1
}
pc=$(find "$dest" -name glstark.pc | head -n 1)
[ -n "$pc" ] || { echo "install_consumer: no glstark.pc was installed"; exit 1; }
pcdir=$(dirname "$pc")
prefix=$(sed -n 's/^prefix=//p' "$pc")
export PKG_CONFIG_PATH="$pcdir"
pkg() { pkg-config --define-variable=prefix="$dest$prefix" "$@" glstark; }
cflags=$(pkg --cflags)
libs=$(pkg --libs)
libdir=$(pkg --variable=libdir)
echo "installed: $(find "$dest" -type f | wc -l) files; pkg-config: $cflags $libs"

# Nothing from the source tree: only the installed headers are on the path.
n=0
for h in "$dest$prefix"/include/glstark/*.h; do
    name=$(basename "$h")
    printf '#include <glstark/%s>\nint main(void) { return 0; }\n' "$name" > "$work/one.c"
    $cc -std=c11 -pedantic -Wall -Wextra -Werror $cflags -c "$work/one.c" -o "$work/one.o" || {
        echo "install_consumer: the installed header glstark/$name does not compile on its own"
        exit 1
    }
    n=$((n + 1))
done
[ "$n" -ge 7 ] || { echo "install_consumer: only $n headers installed"; exit 1; }
echo "each of the $n installed headers compiles on its own (C11, pedantic)"

$cc $san -std=c11 -pedantic -Wall -Wextra -Werror $cflags "$src/tests/install/consumer.c" -o "$work/consumer" $libs
LD_LIBRARY_PATH="$libdir" "$work/consumer"

if [ -n "$san" ]; then
    echo "a sanitizer build: the C++ build is left out"
elif command -v c++ > /dev/null 2>&1; then
    cp "$src/tests/install/consumer.c" "$work/consumer.cpp"
    c++ -std=c++11 -pedantic -Wall -Wextra -Werror $cflags "$work/consumer.cpp" -o "$work/consumer_cpp" $libs
    LD_LIBRARY_PATH="$libdir" "$work/consumer_cpp" > /dev/null
    echo "the same program built as C++11 runs too"
else
    echo "no c++ on the PATH: the C++ build is left out"
fi
echo "install_consumer: ok"
