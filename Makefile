# Two commands for a user (see README.md):
#   make run     install build deps if missing, build, print a bundled real trace
#   make check   build (normal and ASan+UBSan) and run every test
#   make install build, then install into $(DESTDIR)$(PREFIX) (default /usr/local)
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps build asan run check test install clean fuzz

all: build

deps:
	@scripts/deps.sh

build: deps
	@test -f $(BUILD)/CMakeCache.txt || scripts/pgo.sh $(BUILD) $(CMAKE_GEN)
	@cmake --build $(BUILD) -j $(JOBS)
	@python/build.sh $(BUILD)

asan: deps
	@test -f $(ASAN_BUILD)/CMakeCache.txt || CC=clang cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DTIO_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

run: build
	$(BUILD)/traceio tests/data/ctf/wk-heartbeat-u

check: build asan
	@scripts/deps.sh test
	@tests/run.sh $(BUILD) $(ASAN_BUILD)

test: build
	@tests/run.sh $(BUILD)

# library (libtraceio.so.0, only tio_* exported), headers, traceio.pc, the
# CLI, man pages; ldconfig when installing as root into the real system
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

fuzz: deps
	@test -f build-fuzz/CMakeCache.txt || CC=clang cmake -S . -B build-fuzz $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DTIO_SANITIZE=ON -DTIO_FUZZ=ON >/dev/null
	@cmake --build build-fuzz -j $(JOBS)

# `import traceio` for Debian's /usr/bin/python3 (python/README.md): the module
# built by `make build` copied to /usr/local/lib/python3.X/dist-packages; it
# loads $(BUILD)/libtraceio.so (rpath), so keep the build directory
PYTHON_SITE ?= $(shell /usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("platlib", "posix_prefix", {"platbase": "/usr/local"}).replace("site-packages", "dist-packages"))' 2>/dev/null)
install-python: build
	@test -n "$(PYTHON_SITE)" || { echo "no /usr/bin/python3" >&2; exit 1; }
	install -d $(PYTHON_SITE)/traceio
	install -m 644 $(BUILD)/python/traceio/__init__.py $(PYTHON_SITE)/traceio/
	install -m 755 $(BUILD)/python/traceio/_traceio*.so $(PYTHON_SITE)/traceio/

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
