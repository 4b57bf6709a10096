"""Build traceio's Python module (traceio._traceio) against libtraceio.

Against a build tree (what `make python` does):
    TRACEIO_BUILD=/path/to/build /usr/bin/python3 setup.py build --build-base BUILD/python-build --build-lib BUILD/python
Against an installed library: pkg-config traceio is used when TRACEIO_BUILD is not set.
No package index is needed: Debian's python3-dev, python3-numpy and python3-setuptools.
"""
import os
import subprocess

import numpy
from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
build = os.environ.get("TRACEIO_BUILD")

inc = [os.path.join(top, "include"), numpy.get_include()]
libdirs, rpath = [], []
if build:
    build = os.path.abspath(build)
    libdirs = rpath = [build]
else:
    try:
        out = subprocess.run(["pkg-config", "--libs-only-L", "traceio"], check=True, capture_output=True, text=True).stdout
        libdirs = rpath = [a[2:] for a in out.split() if a.startswith("-L")]
        out = subprocess.run(["pkg-config", "--cflags-only-I", "traceio"], check=True, capture_output=True, text=True).stdout
        inc = [a[2:] for a in out.split() if a.startswith("-I")] + [numpy.get_include()]
    except (OSError, subprocess.CalledProcessError):
        libdirs = rpath = [os.path.join(top, "build")]

# optional API functions, by what the headers declare
macros = []
for d in inc:
    h = os.path.join(d, "traceio", "field.h")
    if os.path.exists(h):
        if "tio_field_next_child" in open(h).read():
            macros.append(("TIO_HAVE_NEXT_CHILD", "1"))
        break

setup(
    name="traceio",
    version="0.1.0",
    description="Read CTF, trace.dat and LTT traces (Python bindings of libtraceio)",
    packages=["traceio"],
    package_dir={"traceio": os.path.join(here, "traceio") if os.getcwd() != here else "traceio"},
    ext_modules=[
        Extension(
            "traceio._traceio",
            sources=[os.path.relpath(os.path.join(here, "traceio", "_traceio.c"))],
            include_dirs=inc,
            define_macros=macros,
            library_dirs=libdirs,
            runtime_library_dirs=rpath,
            libraries=["traceio"],
            extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type"],
        )
    ],
)
