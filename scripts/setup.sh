# SPDX-License-Identifier: MIT
# Sourced by scripts/demo and scripts/test: makes sure the build tools are
# here. As root with apt-get (a fresh Debian 12 machine, CI) it installs what
# is missing; otherwise it names what is missing in one line and fails.
# Packages: cmake, a C compiler with its sanitizer runtimes (gcc), make,
# cJSON (libcjson-dev) for the glTF loader, Assimp (libassimp-dev) for FBX,
# Collada and the other formats (sinew builds without it, reading glTF only;
# the tests want it), meshoptimizer (libmeshoptimizer-dev) for
# EXT_meshopt_compression (without it such files are refused); for
# pictures: libepoxy-dev (OpenGL), libpng-dev,
# libglfw3-dev (the viewer's window), Mesa's software driver for EGL
# (libegl-mesa0, libgl1-mesa-dri) and xvfb with xauth (the viewer's test).
# sinew builds without those too; render and view then say what to install.
# Draco (libdraco-dev, and g++ for the C++ unit that calls it) reads
# KHR_draco_mesh_compression; without it such files are refused.

sinew_setup() {
    local missing=() packages=()
    command -v cmake >/dev/null 2>&1 || { missing+=(cmake); packages+=(cmake); }
    command -v cc >/dev/null 2>&1 || { missing+=(cc); packages+=(gcc libc6-dev); }
    if ! command -v ninja >/dev/null 2>&1 && ! command -v make >/dev/null 2>&1; then
        missing+=(make); packages+=(make)
    fi
    [ -f /usr/include/cjson/cJSON.h ] || { missing+=(cJSON); packages+=(libcjson-dev); }
    [ -f /usr/include/assimp/cimport.h ] || { missing+=(Assimp); packages+=(libassimp-dev); }
    [ -f /usr/include/meshoptimizer.h ] || { missing+=(meshoptimizer); packages+=(libmeshoptimizer-dev); }
    [ -f /usr/include/draco/compression/decode.h ] || { missing+=(Draco); packages+=(libdraco-dev); }
    command -v c++ >/dev/null 2>&1 || { missing+=("a C++ compiler"); packages+=(g++); }
    [ -f /usr/include/epoxy/gl.h ] || { missing+=(libepoxy); packages+=(libepoxy-dev); }
    [ -f /usr/include/png.h ] || { missing+=(libpng); packages+=(libpng-dev); }
    [ -f /usr/include/GLFW/glfw3.h ] || { missing+=(GLFW); packages+=(libglfw3-dev); }
    ls /usr/lib/*/libEGL_mesa.so.0 >/dev/null 2>&1 || { missing+=("Mesa EGL"); packages+=(libegl-mesa0); }
    ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 || { missing+=("Mesa GL driver"); packages+=(libgl1-mesa-dri); }
    command -v Xvfb >/dev/null 2>&1 || { missing+=(Xvfb); packages+=(xvfb); }
    command -v xauth >/dev/null 2>&1 || { missing+=(xauth); packages+=(xauth); }
    [ ${#missing[@]} -eq 0 ] && return 0
    sinew_install "${missing[*]}" "${packages[@]}"
}

# sinew_setup_npm DIR WHAT: node and npm (Debian's nodejs and npm as root
# with apt-get), then the test tool DIR/package.json names, at the versions
# its package-lock.json pins, into DIR/node_modules (git ignores it). Fails
# with one line naming what is missing.
sinew_setup_npm() {
    local dir="$1" what="$2"
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        sinew_install "node and npm ($what)" nodejs npm || return 1
    fi
    [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] && return 0
    if ! npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null 2>&1; then
        echo "sinew: missing $what in $dir/node_modules: npm ci --prefix $dir failed (no registry?)" >&2
        return 1
    fi
}

# The spring bones' reference, pixiv's three-vrm with three.js, whose
# GLTFLoader also reads what `sinew convert -o OUT.glb` writes.
sinew_setup_three_vrm() { sinew_setup_npm tests/three_vrm "@pixiv/three-vrm and three"; }

# The Khronos glTF validator, which checks what `sinew convert -o OUT.glb`
# writes.
sinew_setup_gltf_validator() { sinew_setup_npm tests/gltf_validator gltf-validator; }

# gltf-pipeline, which Draco-compresses the shared glTF assets for the
# KHR_draco_mesh_compression tests.
sinew_setup_gltf_pipeline() { sinew_setup_npm tests/gltf_pipeline gltf-pipeline; }

# meshoptimizer's gltfpack, which makes the EXT_meshopt_compression copies
# of the shared glTF assets that gltf_gltfpack_meshopt reads.
sinew_setup_gltfpack() { sinew_setup_npm tests/gltfpack gltfpack; }

# sinew_install WHAT PACKAGE...: installs the packages as root with apt-get,
# else names WHAT and the packages in one line and fails.
sinew_install() {
    local what="$1"
    shift
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "sinew: installing $*" >&2
        if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 ||
           { apt-get update -q >/dev/null 2>&1 &&
             DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null; }; then
            return 0
        fi
    fi
    echo "sinew: missing $what: install with 'apt-get install $*'" >&2
    return 1
}

# sinew_build DIR: builds DIR, its output in DIR/build.log, with one
# progress line on stderr (redrawn on a terminal, every 15 s otherwise);
# on failure the log's end and its place, then fails.
sinew_build() {
    local dir="$1" log="$1/build.log" step="" last=0 now
    echo "sinew: building in $dir/ (a minute or more the first time)" >&2
    cmake --build "$dir" --parallel "$(nproc)" >"$log" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        step=$(grep -o '^\[ *[0-9]*[/%][0-9]*\]' "$log" 2>/dev/null | tail -n 1 || true)
        now=$SECONDS
        if [ -t 2 ]; then
            printf '\rsinew: building %s ' "$step" >&2
        elif [ $((now - last)) -ge 15 ] && [ -n "$step" ]; then
            echo "sinew: building $step" >&2
            last=$now
        fi
    done
    [ -t 2 ] && printf '\r\033[K' >&2
    if ! wait "$pid"; then
        tail -n 40 "$log" >&2
        echo "sinew: the build failed; its whole output is in $log" >&2
        return 1
    fi
}

# The generator: Ninja when present, else Makefiles.
sinew_generator() {
    if command -v ninja >/dev/null 2>&1; then echo Ninja; else echo "Unix Makefiles"; fi
}

# The fuzzers' tools (scripts/fuzz): clang with libFuzzer and the sanitizer
# runtimes (libclang-rt-14-dev on Debian 12). Installs them as root with
# apt-get, else names them in one line and fails.
sinew_setup_fuzz() {
    local packages=()
    command -v clang >/dev/null 2>&1 || packages+=(clang)
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
        packages+=(libclang-rt-14-dev)
    [ ${#packages[@]} -eq 0 ] && return 0
    sinew_install "${packages[*]} (the fuzzers)" "${packages[@]}"
}

# The CMake flags that build the CUDA crowd path when nvcc is here (on the
# PATH or in /usr/local/cuda, where NVIDIA's toolkit installs; Debian 12 has
# it only in non-free), one per line; without nvcc nothing, and a line on
# stderr saying the CUDA code is not compiled.
sinew_cuda_flags() {
    local nvcc
    nvcc=$(command -v nvcc 2>/dev/null || true)
    [ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
    if [ -n "$nvcc" ]; then
        printf '%s\n' -DSINEW_CUDA=ON "-DCMAKE_CUDA_COMPILER=$nvcc"
    else
        echo "sinew: no nvcc (NVIDIA's CUDA toolkit): the CUDA crowd path is not compiled" >&2
    fi
}

# The cross toolchains and the emulators that run their tests: MinGW-w64
# and Wine for Windows, gcc-aarch64-linux-gnu and qemu-user for arm64.
# Installs them as root with apt-get, else names them in one line and fails.
sinew_setup_cross() {
    local packages=()
    case "$1" in
    windows)
        command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || packages+=(gcc-mingw-w64-x86-64)
        [ -x /usr/lib/wine/wine64 ] || packages+=(wine64)
        ;;
    arm64)
        command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
        command -v qemu-aarch64 >/dev/null 2>&1 || packages+=(qemu-user)
        ;;
    esac
    [ ${#packages[@]} -eq 0 ] && return 0
    sinew_install "${packages[*]} (the $1 cross build)" "${packages[@]}"
}
