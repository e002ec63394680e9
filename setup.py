# SPDX-License-Identifier: MIT
"""The build half of pyproject.toml: the version from include/blockbloom.h, and the C
extension parts of the package built by CMake (python/CMakeLists.txt) and copied where
setuptools packs them into the wheel.

Each part is one row of PARTS: the module name, the CMake target that builds it, and whether
the package is still usable without it. An optional part (a binding whose C dependency may be
missing on the building machine) is built when its target exists after configuring, and
skipped with a message otherwise; setuptools' own `optional` flag covers a failed build.

The build is Release with the library linked statically, without debug information and
symbol tables, and with the source and build directories mapped to '.' in anything the
compiler records, so that the wheel holds no path of the machine that built it. libidn2 is
left out (-DBB_WITH_IDN2=OFF: the package has no domain-name calls). The Redis client
(blockbloom.redis, python/src/redis.c) is compiled into _core when CMake finds hiredis, which
the extension then needs at run time; BB_BUILD_REDIS=OFF in the environment leaves it out,
so that the extension needs nothing beyond the C library.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))

# (module, CMake target, optional)
PARTS = [
    ("blockbloom._core", "blockbloom_python", False),
]


def version():
    with open(os.path.join(ROOT, "include", "blockbloom.h"), encoding="utf-8") as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define BB_VERSION_%s (\d+)$" % part, text, re.M)
        if not m:
            sys.exit("setup.py: no BB_VERSION_%s in include/blockbloom.h" % part)
        parts.append(m.group(1))
    return ".".join(parts)


class CMakePart(Extension):
    def __init__(self, name, target, optional):
        super().__init__(name, sources=[], optional=optional)
        self.target = target


class CMakeBuild(build_ext):
    """Configures CMake once per build directory, then builds each part's target."""

    def cmake_dir(self):
        """Configured on each build (cheap when the cache is there), so that a changed
        BB_BUILD_REDIS takes effect in a reused build directory."""
        d = os.path.join(os.path.abspath(self.build_temp), "cmake")
        if getattr(self, "_configured", False):
            return d
        os.makedirs(d, exist_ok=True)
        prefix_map = "-ffile-prefix-map=%s=. -ffile-prefix-map=%s=." % (ROOT, d)
        subprocess.check_call([
            "cmake", "-S", ROOT, "-B", d, "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_SHARED_LIBS=OFF", "-DBB_BUILD_PYTHON=ON", "-DBB_BUILD_TESTS=OFF",
            "-DBB_BUILD_BENCH=OFF", "-DBB_BUILD_CLI=OFF", "-DBB_BUILD_PARQUET=OFF",
            "-DBB_WITH_IDN2=OFF", "-DCMAKE_SKIP_RPATH=ON",
            "-DBB_BUILD_REDIS=" + os.environ.get("BB_BUILD_REDIS", "ON"),
            "-DPython3_EXECUTABLE=" + sys.executable,
            "-DCMAKE_C_FLAGS=" + prefix_map, "-DCMAKE_MODULE_LINKER_FLAGS=-s",
        ])
        self._configured = True
        return d

    def build_extension(self, ext):
        d = self.cmake_dir()
        targets = subprocess.run(["cmake", "--build", d, "--target", "help"], check=True,
                                 capture_output=True, text=True).stdout
        if ext.optional and not re.search(r"\b%s\b" % re.escape(ext.target), targets):
            print("setup.py: skipping %s (CMake did not configure %s)" % (ext.name, ext.target))
            return
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", d, "--target", ext.target, "-j", jobs])
        leaf = ext.name.rsplit(".", 1)[1]
        built = glob.glob(os.path.join(d, "python", "blockbloom", leaf + ".*.so"))
        if len(built) != 1:
            sys.exit("setup.py: expected one %s.*.so from CMake, found %r" % (leaf, built))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)


setup(
    version=version(),
    ext_modules=[CMakePart(*p) for p in PARTS],
    cmdclass={"build_ext": CMakeBuild},
)
